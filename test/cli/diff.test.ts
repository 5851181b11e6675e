/** How `reconstruct diff` prints one planned change: kubectl diff's form, server fields and status left out. */
import { formatChange } from '../../cli/diff/command';
import { DEPLOYMENT, SECRET } from '../../constructs';
import { dryRunClient } from '../../cli/diff/dry-run';
import type { KubeRequest } from '../../controller/kube/http';

const deployment = (replicas: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    resourceVersion: '7',
    generation: 3,
    uid: 'u1',
    managedFields: [],
  },
  spec: { replicas },
  status: { replicas: 1 },
  ...extra,
});

describe('formatChange', () => {
  it('prints a unified diff under kubectl diff’s file names, without server fields or status', () => {
    const text = formatChange({
      type: { ...DEPLOYMENT },
      namespace: 'shop',
      name: 'web',
      before: deployment(1),
      after: {
        ...deployment(2),
        metadata: { ...deployment(2).metadata, resourceVersion: '8', generation: 4 },
      },
    });
    expect(text).toBe(
      [
        'diff -u -N live/apps.v1.Deployment.shop.web merged/apps.v1.Deployment.shop.web',
        '--- live/apps.v1.Deployment.shop.web',
        '+++ merged/apps.v1.Deployment.shop.web',
        '@@ -4,4 +4,4 @@',
        '   name: web',
        '   namespace: shop',
        ' spec:',
        '-  replicas: 1',
        '+  replicas: 2',
        '',
      ].join('\n'),
    );
  });

  it('prints nothing for an object that would not change but for the server’s own fields', () => {
    const after = { ...deployment(1), metadata: { ...deployment(1).metadata, resourceVersion: '9' } };
    expect(
      formatChange({ type: { ...DEPLOYMENT }, namespace: 'shop', name: 'web', before: deployment(1), after }),
    ).toBe('');
  });

  it('prints nothing for the same object in another order of its fields (a dry run answers kind first)', () => {
    const { kind, apiVersion, ...rest } = deployment(1);
    const answered = { kind, spec: rest.spec, apiVersion, metadata: rest.metadata };
    const change = { type: { ...DEPLOYMENT }, namespace: 'shop', name: 'web' };
    expect(formatChange({ ...change, before: deployment(1), after: answered })).toBe('');
    const added = formatChange({ ...change, after: answered });
    expect(added.split('\n').slice(4, 7)).toEqual([
      '+apiVersion: apps/v1',
      '+kind: Deployment',
      '+metadata:',
    ]);
  });

  it('prints a new object as all added and a pruned one as all removed', () => {
    const added = formatChange({
      type: { ...DEPLOYMENT },
      namespace: 'shop',
      name: 'web',
      after: deployment(1),
    });
    expect(added.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'))).toContain(
      '+kind: Deployment',
    );
    const removed = formatChange({
      type: { ...DEPLOYMENT },
      namespace: 'shop',
      name: 'web',
      before: deployment(1),
    });
    expect(removed.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'))).toContain(
      '-kind: Deployment',
    );
  });

  it('masks Secret values, telling a changed one apart', () => {
    const secret = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'pw', namespace: 'shop' },
      data,
    });
    const text = formatChange({
      type: { ...SECRET },
      namespace: 'shop',
      name: 'pw',
      before: secret({ user: 'YQ==', password: 'Yg==' }),
      after: secret({ user: 'YQ==', password: 'Yw==' }),
    });
    expect(text).not.toContain('Yg==');
    expect(text).not.toContain('Yw==');
    expect(text).toContain('-  password: "*** (before)"');
    expect(text).toContain('+  password: "*** (after)"');
    expect(text).not.toContain('-  user');
  });
});

describe('dryRunClient', () => {
  it('makes every write a dry run, a delete in its body too (the body’s options replace the query’s)', async () => {
    const seen: KubeRequest[] = [];
    const client = dryRunClient({
      request: <T>(req: KubeRequest) => {
        seen.push(req);
        return Promise.resolve({} as T);
      },
      watch: () => (async function* () {})(),
    });
    await client.request({ method: 'GET', path: '/api/v1/namespaces/a/services/b' });
    await client.request({ method: 'PATCH', path: '/api/v1/namespaces/a/services/b', body: {} });
    await client.request({
      method: 'DELETE',
      path: '/api/v1/namespaces/a/services/b',
      body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'u' } },
    });
    expect(seen[0].query).toBeUndefined();
    expect(seen[1].query).toEqual({ dryRun: 'All' });
    expect(seen[2].query).toEqual({ dryRun: 'All' });
    expect(seen[2].body).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      preconditions: { uid: 'u' },
      dryRun: ['All'],
    });
  });
});
