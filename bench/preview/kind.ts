/**
 * The kind of the preview benchmark, in two builds: a Service `<name>` is a Deployment and a ConfigMap of
 * its settings. The second build adds a variable to every Deployment's container (each resource changes);
 * the first is what the controller runs (the `kinds` of this module).
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { CONFIG_MAP, DEPLOYMENT, defineKind, type ResourceProps } from '../../constructs';

export interface AppSpec {
  image: string;
  /** @default 1 */
  replicas?: number;
}

function appKind(build: 'v1' | 'v2') {
  class App extends Construct {
    constructor(scope: Construct, id: string, { name, spec }: ResourceProps<AppSpec>) {
      super(scope, id);
      const labels = { app: name };
      new ApiObject(this, 'settings', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-settings` },
        data: { LOG_LEVEL: 'info' },
      });
      new ApiObject(this, 'deployment', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          replicas: spec.replicas ?? 1,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              containers: [
                {
                  name: 'app',
                  image: spec.image,
                  envFrom: [{ configMapRef: { name: `${name}-settings` } }],
                  env: build === 'v2' ? [{ name: 'CACHE', value: 'on' }] : [],
                },
              ],
            },
          },
        },
      });
    }
  }
  return defineKind<AppSpec>({
    apiVersion: 'bench.reconstruct.dev/v1',
    kind: 'App',
    plural: 'apps',
    schema: {
      description: 'A Deployment and the ConfigMap of its settings.',
      spec: {
        type: 'object',
        required: ['image'],
        properties: { image: { type: 'string' }, replicas: { type: 'integer', minimum: 0 } },
      },
    },
    construct: App,
    children: [DEPLOYMENT, CONFIG_MAP],
  });
}

export const appV1 = appKind('v1');
export const appV2 = appKind('v2');

/** The module's kinds, as `reconstruct controller --kinds` reads them: the first build. */
export const kinds = [appV1];
