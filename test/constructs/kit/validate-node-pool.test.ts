/**
 * Offline admission against the NodePool CRD. Every expected error below is what kube-apiserver v1.36
 * answered to the same object on a server-side dry run (`details.causes`), except where a comment says
 * why ours differs.
 */
import { nodePoolKind } from '../../../constructs';
import { validateResource } from '../../../constructs/kit/validate';
import { RULES_NOT_CHECKED, errorsOf, resource } from './validate-fixtures';

const { crd: nodePoolCrd } = nodePoolKind;

describe('NodePool', () => {
  const np = (spec: unknown, metadata?: unknown) => resource(nodePoolCrd, spec, metadata);
  const reservedLabels = (key: string) => ({
    field: 'spec.labels',
    message: `Invalid value: label keys under kubernetes.io or k8s.io are reserved for Kubernetes: ${key}`,
  });

  it('admits a valid pool and defaults the handler and taint values', () => {
    const { object, errors } = validateResource(
      nodePoolCrd,
      np({ labels: { 'node-pool.lailin.xyz/a': '1' }, taints: [{ key: 'dedicated', effect: 'NoSchedule' }] }),
    );
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({
      labels: { 'node-pool.lailin.xyz/a': '1' },
      taints: [{ key: 'dedicated', effect: 'NoSchedule', value: '' }],
      handler: 'runc',
    });
  });

  it('drops metadata.namespace silently, as the API server does for a cluster-scoped kind', () => {
    const { object, errors } = validateResource(nodePoolCrd, np({}, { name: 'p', namespace: 'default' }));
    expect(errors).toEqual([]);
    expect(object.metadata).toEqual({ name: 'p' });
  });

  it('rejects label keys under kubernetes.io and k8s.io', () => {
    expect(errorsOf(nodePoolCrd, np({ labels: { 'kubernetes.io/foo': 'x' } }))).toEqual([
      reservedLabels('kubernetes.io/foo'),
    ]);
    expect(errorsOf(nodePoolCrd, np({ labels: { 'node.k8s.io/x': 'x' } }))).toEqual([
      reservedLabels('node.k8s.io/x'),
    ]);
  });

  it('rejects taint keys under kubernetes.io', () => {
    expect(
      errorsOf(nodePoolCrd, np({ taints: [{ key: 'node.kubernetes.io/foo', effect: 'NoSchedule' }] })),
    ).toEqual([
      {
        field: 'spec.taints[0].key',
        message:
          'Invalid value: "node.kubernetes.io/foo": taint keys under kubernetes.io or k8s.io are reserved for Kubernetes',
      },
    ]);
  });

  it('rejects an unknown taint effect, and then skips the CEL rules as the API server does', () => {
    expect(errorsOf(nodePoolCrd, np({ taints: [{ key: 'k', effect: 'NoWay' }] }))).toEqual([
      {
        field: 'spec.taints[0].effect',
        message:
          'Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  it('rejects a second taint with the same key and effect, reporting each duplicate once', () => {
    const taints = [
      { key: 'k', effect: 'NoSchedule' },
      { key: 'k', effect: 'NoExecute' },
      { key: 'k', effect: 'NoSchedule', value: 'x' },
      { key: 'k', effect: 'NoSchedule' },
    ];
    expect(errorsOf(nodePoolCrd, np({ taints }))).toEqual([
      { field: 'spec.taints[2]', message: 'Duplicate value: {"effect":"NoSchedule","key":"k"}' },
    ]);
  });

  it('applies the root rule on metadata.name to the whole object, and reports it on metadata.name', () => {
    expect(errorsOf(nodePoolCrd, np({}, { name: 'x'.repeat(54) }))).toEqual([
      {
        field: 'metadata.name',
        message:
          'Invalid value: must be at most 53 characters: it names node-pool-<name> and a node-role label',
      },
    ]);
    expect(errorsOf(nodePoolCrd, np({}, { name: 'x'.repeat(53) }))).toEqual([]);
  });

  it('checks label keys and values with the schema and the key rule', () => {
    expect(errorsOf(nodePoolCrd, np({ labels: { '-bad': 'x', a: 'v'.repeat(64), b: 'bad value' } }))).toEqual(
      [
        // Schema errors name a map value kube-openapi's way (a dot); CEL errors below use field.Path's.
        { field: 'spec.labels.a', message: 'Too long: may not be more than 63 bytes' },
        {
          field: 'spec.labels.b',
          message:
            'Invalid value: "bad value": spec.labels.b in body should match \'^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$\'',
        },
        RULES_NOT_CHECKED,
      ],
    );
    expect(errorsOf(nodePoolCrd, np({ labels: { '-bad': 'x' } }))).toEqual([
      {
        field: 'spec.labels',
        message:
          'Invalid value: keys must be qualified names (an optional DNS subdomain prefix and "/", then a name)',
      },
    ]);
  });

  it('rejects a handler that is not a DNS label, and unknown fields inside list items', () => {
    expect(
      errorsOf(nodePoolCrd, np({ handler: 'Bad', taints: [{ key: 'k', effect: 'NoSchedule', bar: 1 }] })),
    ).toEqual([
      { field: 'spec.taints[0].bar', message: 'unknown field "spec.taints[0].bar"' },
      {
        field: 'spec.handler',
        message:
          'Invalid value: "Bad": spec.handler in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
      },
    ]);
  });
});
