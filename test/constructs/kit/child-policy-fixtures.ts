/** What the child policy tests share: children to declare policies on, and reading them back. */
import { ApiObject, type Chart } from 'cdk8s';
import type { Construct } from 'constructs';
import type { Manifest } from '../../../constructs/kit/resource';

/** The message `fn` throws; fails the test when it throws nothing. */
export function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error, got none');
}

export const configMap = (scope: Construct, name: string) =>
  new ApiObject(scope, name, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

export const deployment = (scope: Construct, name: string) =>
  new ApiObject(scope, name, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 2 },
  });

export const secret = (scope: Construct, name: string) =>
  new ApiObject(scope, name, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque' });

/** The manifest `kind`/`name` of the chart, as `chart.toJson()` renders it. */
export function rendered(chart: Chart, kind: string, name: string): Manifest {
  const found = (chart.toJson() as Manifest[]).find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`${kind} ${name} is not rendered`);
  return found;
}

/** A manifest with `annotations`, as a construct author might write them by hand. */
export const annotated = (kind: string, name: string, annotations: Record<string, string>): Manifest => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  metadata: { name, annotations },
});
