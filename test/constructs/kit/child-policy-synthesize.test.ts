/** Child policies through `synthesize`: what a kind's construct declares, as the renderer and the controller get it. */
import { ApiObject, App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { CONFIG_MAP, DEPLOYMENT } from '../../../constructs/kit/api-kind';
import {
  OWNER_UID_ANNOTATION,
  RETAIN_ANNOTATION,
  WAIT_FOR_ANNOTATION,
} from '../../../constructs/kit/child-annotations';
import { childPolicy } from '../../../constructs/kit/child-policy';
import { defineKind } from '../../../constructs/kit/define-kind';
import type { CustomResource, Manifest, ResourceProps } from '../../../constructs/kit/resource';
import { synthesize } from '../../../constructs/kit/synthesize';
import { policyDemoKind, type PolicyDemoSpec } from '../../fixtures/kinds/policy-demo';
import { configMap, deployment, errorOf } from './child-policy-fixtures';

describe('synthesize with child policies', () => {
  const UID = '0b9d7e4c-5a2f-4c1e-9f3a-7d6b5c4e3a21';
  const demo = (spec: PolicyDemoSpec): CustomResource<PolicyDemoSpec> => ({
    apiVersion: 'policies.example.com/v1',
    kind: 'PolicyDemo',
    metadata: { name: 'demo', namespace: 'ns' },
    spec,
  });
  const find = (children: Manifest[], kind: string, name: string) => {
    const child = children.find((c) => c.kind === kind && c.metadata.name === name);
    if (!child) throw new Error(`no ${kind} ${name}`);
    return child;
  };

  it('gives a retained child the owner uid as an annotation instead of an ownerReference', () => {
    const children = synthesize(policyDemoKind, demo({ data: true }), { owner: { uid: UID } });
    const retained = find(children, 'ConfigMap', 'demo-data');
    expect(retained.metadata.ownerReferences).toBeUndefined();
    expect(retained.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBe(UID);
    expect(retained.metadata.annotations?.[RETAIN_ANNOTATION]).toBe('true');

    const sibling = find(children, 'ConfigMap', 'demo-scratch');
    expect(sibling.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'policies.example.com/v1',
        kind: 'PolicyDemo',
        name: 'demo',
        uid: UID,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(sibling.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBeUndefined();
  });

  it('offline (no owner), gives the retained child neither', () => {
    const retained = find(synthesize(policyDemoKind, demo({ data: true })), 'ConfigMap', 'demo-data');
    expect(retained.metadata.ownerReferences).toBeUndefined();
    expect(retained.metadata.annotations?.[OWNER_UID_ANNOTATION]).toBeUndefined();
  });

  /** A kind whose construct makes its ConfigMap wait for `target(scope, name)`. */
  const waitingKind = (target: (scope: Construct, name: string, config: ApiObject) => Construct) => {
    class Waiting extends Construct {
      constructor(scope: Construct, id: string, { name }: ResourceProps<object>) {
        super(scope, id);
        const config = configMap(this, `${name}-config`);
        childPolicy(config, { waitFor: [target(this, name, config)] });
      }
    }
    return defineKind<object>({
      apiVersion: 'waits.example.com/v1',
      kind: 'Waiting',
      plural: 'waitings',
      schema: { description: 'Waits.', spec: { type: 'object', properties: {} } },
      construct: Waiting,
      children: [CONFIG_MAP, DEPLOYMENT],
    });
  };
  const waiting: CustomResource<object> = {
    apiVersion: 'waits.example.com/v1',
    kind: 'Waiting',
    metadata: { name: 'w', namespace: 'ns' },
    spec: {},
  };

  it('renders a child that waits for a rendered sibling', () => {
    const kind = waitingKind((scope, name) => deployment(scope, `${name}-db`));
    const config = find(synthesize(kind, waiting), 'ConfigMap', 'w-config');
    expect(config.metadata.annotations?.[WAIT_FOR_ANNOTATION]).toBe('Deployment/w-db');
  });

  it('throws for a child that waits for a sibling that is not rendered', () => {
    // The Deployment belongs to another chart: the construct waits for something it does not render.
    const kind = waitingKind((_, name) => deployment(new Chart(new App(), 'elsewhere'), `${name}-db`));
    expect(errorOf(() => synthesize(kind, waiting))).toBe(
      "ConfigMap/w-config waits for Deployment/w-db, which is not among the resource's children",
    );
  });

  it('throws for siblings that wait for each other', () => {
    const kind = waitingKind((scope, name, config) => {
      const db = deployment(scope, `${name}-db`);
      childPolicy(db, { waitFor: [config] });
      return db;
    });
    expect(errorOf(() => synthesize(kind, waiting))).toBe(
      'children wait for each other in a cycle: ConfigMap/w-config -> Deployment/w-db -> ConfigMap/w-config',
    );
  });
});
