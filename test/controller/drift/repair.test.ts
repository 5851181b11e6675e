/** The drift repair's decisions: what it restores, what it keeps, and when it stops trying. */
import { DEPLOYMENT, SERVICE, type Manifest } from '../../../constructs';
import { DriftRepair, repairPatch, restored, type DriftWriter } from '../../../controller/drift/repair';
import { ApiError } from '../../../controller/kube/errors';
import { createLogger } from '../../../controller/log';

const service = (ports: object[], extra: object = {}): Manifest => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'mc', namespace: 'demo', resourceVersion: '7' },
  spec: { ports, ...extra },
});

describe('restored', () => {
  it('puts a re-keyed list entry back, keeping the defaults the server filled in', () => {
    const desired = [{ name: 'memcached', port: 11211 }];
    const live = [{ name: 'memcached', port: 11212, protocol: 'TCP', targetPort: 11211 }];
    expect(restored(desired, live)).toEqual([
      { name: 'memcached', port: 11211, protocol: 'TCP', targetPort: 11211 },
    ]);
  });

  it('drops entries of a desired list that are not desired, and keeps fields the desired object does not set', () => {
    const desired = { containers: [{ name: 'db', env: [{ name: 'A', value: '1' }] }] };
    const live = {
      containers: [
        {
          name: 'db',
          env: [
            { name: 'RENAMED', value: '1' },
            { name: 'A', value: '1' },
          ],
          terminationMessagePath: '/dev/termination-log',
        },
      ],
      dnsPolicy: 'ClusterFirst',
    };
    expect(restored(desired, live)).toEqual({
      containers: [
        { name: 'db', env: [{ name: 'A', value: '1' }], terminationMessagePath: '/dev/termination-log' },
      ],
      dnsPolicy: 'ClusterFirst',
    });
  });

  it('matches each live entry to one desired entry at most', () => {
    const desired = [
      { name: 'a', port: 1 },
      { name: 'b', port: 2 },
    ];
    const live = [{ name: 'a', port: 1, nodePort: 30001 }];
    expect(restored(desired, live)).toEqual([
      { name: 'a', port: 1, nodePort: 30001 },
      { name: 'b', port: 2 },
    ]);
  });
});

describe('repairPatch', () => {
  it('replaces the drifted top-level fields, each guarded by its value as read, and leaves metadata alone', () => {
    const desired = service([{ name: 'memcached', port: 11211 }]);
    const live = service([{ name: 'memcached', port: 11212, protocol: 'TCP' }], { clusterIP: '10.0.0.1' });
    live.metadata.ownerReferences = [];
    expect(repairPatch(desired, live)).toEqual([
      { op: 'test', path: '/spec', value: live.spec },
      {
        op: 'replace',
        path: '/spec',
        value: { ports: [{ name: 'memcached', port: 11211, protocol: 'TCP' }], clusterIP: '10.0.0.1' },
      },
    ]);
  });

  it('has nothing to do when the live object holds the desired one', () => {
    const desired = service([{ name: 'memcached', port: 11211 }]);
    expect(
      repairPatch(desired, service([{ name: 'memcached', port: 11211, protocol: 'TCP' }])),
    ).toBeUndefined();
  });
});

/** A writer whose apply keeps a foreign entry (as server-side apply does) and records the writes. */
function fakeWriter(live: Manifest, options: { refuseApply?: boolean; undo?: boolean } = {}) {
  const writes: string[] = [];
  let current = structuredClone(live);
  const writer: DriftWriter = {
    apply: (_type: unknown, body: Manifest) => {
      writes.push('apply');
      if (options.refuseApply && writes.filter((w) => w === 'apply').length === 1) {
        return Promise.reject(new ApiError(422, 'Duplicate value: "memcached"', { reason: 'Invalid' }));
      }
      return Promise.resolve(current.spec ? current : body);
    },
    read: <T>() => {
      writes.push('read');
      return Promise.resolve(current as T);
    },
    jsonPatch: (_type: unknown, _ns: unknown, _name: unknown, ops: { op: string; value?: unknown }[]) => {
      writes.push('patch');
      if (!options.undo) current = { ...current, spec: ops.find((o) => o.op === 'replace')?.value };
      return Promise.resolve(current);
    },
  };
  return { writer, writes };
}

describe('DriftRepair', () => {
  const log = createLogger({ write: () => {}, level: 'error' });
  const desired = service([{ name: 'memcached', port: 11211 }]);
  const drifted = service([
    { name: 'memcached', port: 11212 },
    { name: 'memcached', port: 11211 },
  ]);

  it('patches when an apply leaves foreign entries', async () => {
    const { writer, writes } = fakeWriter(drifted);
    const result = await new DriftRepair(writer, log).apply(SERVICE, 'k', desired);
    expect(result.repaired).toEqual(['spec']);
    expect(writes).toEqual(['apply', 'patch']);
  });

  it('reads and patches when the API server refuses the merged object, then applies again', async () => {
    const { writer, writes } = fakeWriter(service([{ name: 'memcached', port: 11212 }]), {
      refuseApply: true,
    });
    const result = await new DriftRepair(writer, log).apply(SERVICE, 'k', desired);
    expect(result.repaired).toEqual(['spec']);
    expect(writes).toEqual(['apply', 'read', 'patch', 'apply']);
  });

  it('writes nothing more than the apply when nothing drifted', async () => {
    const { writer, writes } = fakeWriter(service([{ name: 'memcached', port: 11211, protocol: 'TCP' }]));
    expect((await new DriftRepair(writer, log).apply(SERVICE, 'k', desired)).repaired).toBeUndefined();
    expect(writes).toEqual(['apply']);
  });

  it('gives up on a repair that does not hold (something puts the entries back), once per desired state', async () => {
    const { writer, writes } = fakeWriter(drifted, { undo: true });
    const repair = new DriftRepair(writer, log);
    await repair.apply(DEPLOYMENT, 'k', desired);
    await repair.apply(DEPLOYMENT, 'k', desired);
    expect(writes).toEqual(['apply', 'patch', 'apply']);
    // A new desired state is worth one more try.
    await repair.apply(DEPLOYMENT, 'k', service([{ name: 'memcached', port: 11213 }]));
    expect(writes).toEqual(['apply', 'patch', 'apply', 'apply', 'patch']);
  });
});
