/**
 * Offline admission of children of built-in kinds against the Kubernetes OpenAPI schemas shipped with the
 * package (constructs/kit/validate/kubernetes-openapi.json) and the Go-validation checks beside them. That
 * the API server agrees, case by case, is test/synth/child-validation.cluster.test.ts.
 */
import { validateChild } from '../../../constructs/kit/validate/kubernetes';

const deployment = (
  spec: Record<string, unknown> = {},
  labels: Record<string, unknown> = { app: 'web' },
) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    },
    ...spec,
  },
});

const claim = (spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data' },
  spec,
});

const fields = (child: unknown) => validateChild(child)?.map((e) => `${e.field}: ${e.message}`);

describe('validateChild', () => {
  it('accepts a valid Deployment, PersistentVolumeClaim, Service and ConfigMap', () => {
    expect(fields(deployment({ replicas: 2, strategy: { rollingUpdate: { maxSurge: '25%' } } }))).toEqual([]);
    expect(
      fields(claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } })),
    ).toEqual([]);
    expect(
      fields({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { ports: [{ port: 80, targetPort: 'http' }] },
      }),
    ).toEqual([]);
    expect(
      fields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { 'index.html': 'hi' } }),
    ).toEqual([]);
  });

  it('does not check a kind it has no schema for', () => {
    expect(
      validateChild({
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'ServiceMonitor',
        metadata: { name: 'm' },
      }),
    ).toBe(undefined);
  });

  it('reports unknown fields, wrong types, int32 overflow and required fields, naming each field', () => {
    expect(
      fields(deployment({ replicas: 'two', replica: 2, minReadySeconds: 3000000000, selector: undefined })),
    ).toEqual([
      'spec.replica: unknown field "spec.replica"',
      'spec.minReadySeconds: Invalid value: "": Checked value must be of type integer with format int32 in spec.minReadySeconds',
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      'spec.selector: Required value',
    ]);
  });

  it('takes an int-or-string as either, and refuses a fraction', () => {
    const service = (targetPort: unknown) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { ports: [{ port: 80, targetPort }] },
    });
    expect(fields(service(8080))).toEqual([]);
    expect(fields(service('http'))).toEqual([]);
    expect(fields(service(1.5))).toEqual([
      'spec.ports[0].targetPort: Invalid value: "number": spec.ports[0].targetPort in body must be of type integer,string: "number"',
    ]);
  });

  it('refuses a claim without a storage request, an empty one, and a quantity that does not parse', () => {
    expect(fields(claim({ accessModes: ['ReadWriteOnce'], resources: { requests: {} } }))).toEqual([
      'spec.resources[storage]: Required value',
    ]);
    expect(fields(claim({ accessModes: [], resources: { requests: { storage: 'lots' } } }))).toEqual([
      'spec.resources.requests.storage: Invalid value: "lots": quantities must match the regular expression ' +
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      'spec.accessModes: Required value: at least 1 access mode is required',
    ]);
  });

  it('refuses a required field that is present but empty', () => {
    const noContainers = deployment();
    noContainers.spec.template.spec.containers = [];
    expect(fields(noContainers)).toEqual(['spec.template.spec.containers: Required value']);
  });

  it('refuses a selector that does not select the pod template, and a bad template label', () => {
    expect(fields(deployment({}, { app: 'other' }))).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
    ]);
    expect(fields(deployment({ selector: { matchLabels: { 'a b': 'web' } } }, { 'a b': 'web' }))).toEqual([
      expect.stringMatching(
        /^spec\.template\.metadata\.labels: Invalid value: "a b": name part must consist of/,
      ),
    ]);
  });

  it('refuses a container name used twice, a pull policy not in the enum and restart policies the kind does not take', () => {
    const twice = deployment({ template: undefined });
    twice.spec.template = {
      metadata: { labels: { app: 'web' } },
      spec: {
        restartPolicy: 'Never',
        containers: [
          { name: 'web', image: 'nginx', imagePullPolicy: 'Sometimes' },
          { name: 'web', image: 'nginx' },
        ],
      },
    } as never;
    expect(fields(twice)).toEqual([
      'spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      'spec.template.spec.containers[1]: Duplicate value: {"name":"web"}',
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate' },
      spec: { template: { spec: { containers: [{ name: 'm', image: 'busybox' }] } } },
    };
    expect(fields(job)).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ]);
  });

  it('refuses ConfigMap keys that are not file names', () => {
    expect(
      fields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { 'a/b': 'x' } }),
    ).toEqual([
      `data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
    ]);
  });
});
