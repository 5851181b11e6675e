/**
 * The kube client and the Informer against the real local control plane. Jest cannot load
 * @kubernetes/client-node, so the code under test runs in a driver process
 * (test/controller/drivers/*) that prints what it sees; the test changes ConfigMaps with kubectl.
 */
import { startDriver, type Driver, type DriverLine } from './drivers/process';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  kubectl,
  uniqueName,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

let ns: string;
const drivers: Driver[] = [];
beforeAll(() => {
  ns = createNamespace('informer');
});
afterAll(async () => {
  await Promise.all(drivers.map((d) => d.kill()));
  if (ns) deleteNamespace(ns);
});

function start(file: string, config: Record<string, unknown>): Driver {
  const driver = startDriver(file, config);
  drivers.push(driver);
  return driver;
}

function configMap(name: string, data: Record<string, string>, app = 'informer-test'): void {
  applyYaml(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, labels: { app } },
      data,
    }),
  );
}

const is =
  (t: string, name?: string, data?: Record<string, string>) =>
  (line: DriverLine): boolean =>
    line.t === t &&
    (name === undefined || line.name === name) &&
    (data === undefined || JSON.stringify(line.data) === JSON.stringify(data));

describe('the kube client', () => {
  test('maps API errors, streams watches, counts requests by verb', async () => {
    const driver = start('client-driver.ts', { namespace: ns });
    expect(await driver.exited).toBe(0);
    const steps = Object.fromEntries(
      driver.lines.filter((l) => l.t === 'step').map((l) => [l.step as string, l]),
    ) as Record<string, DriverLine>;
    expect(steps['get-missing']).toMatchObject({
      ok: false,
      apiError: true,
      status: 404,
      reason: 'NotFound',
    });
    expect(steps['get-missing'].message).toMatch(/configmaps "x" not found/);
    expect(steps.create).toMatchObject({ ok: true, value: { a: '1' } });
    expect(steps['create-again']).toMatchObject({ ok: false, status: 409, reason: 'AlreadyExists' });
    expect(steps['merge-patch']).toMatchObject({ ok: true, value: { a: '1', b: '2' } });
    expect(steps['update-stale']).toMatchObject({ ok: false, status: 409, reason: 'Conflict' });
    expect(steps.apply).toMatchObject({ ok: true });
    expect((steps.apply.value as { managers: string[] }).managers).toContain('client-driver');
    // The Writer's applies (fieldValidation=Ignore): a field the schema does not know is still refused.
    expect(steps['writer-apply']).toMatchObject({ ok: true });
    const unknown: [string, string][] = [
      ['writer-apply-unknown-field', '.datta: field not declared in schema'],
      ['writer-apply-unknown-spec-field', '.spec.sise: field not declared in schema'],
      ['writer-apply-unknown-status-field', '.status.nodez: field not declared in schema'],
    ];
    for (const [step, message] of unknown) {
      expect(steps[step]).toMatchObject({ ok: false, status: 500 });
      expect(steps[step].message).toContain(message);
    }
    expect(steps['writer-apply-resource']).toMatchObject({ ok: true });
    expect(steps['delete-resource']).toMatchObject({ ok: true });
    expect(steps['create-invalid']).toMatchObject({ ok: false, status: 422, reason: 'Invalid' });
    expect(steps.list).toMatchObject({ ok: true });
    expect(steps['watch-until-server-closes']).toMatchObject({ ok: true, value: ['ADDED:x'] });
    expect(steps['watch-abort']).toMatchObject({ ok: false, apiError: true, reason: 'Aborted' });
    expect(steps.delete).toMatchObject({ ok: true });
    expect(steps['get-deleted']).toMatchObject({ ok: false, status: 404 });
    // 20 watches more than one HTTP/2 connection may carry: a second connection, neither over the
    // server's limit, and requests answered at once meanwhile.
    const over = steps['streams-over-limit'].value as {
      protocol: string;
      limit: number;
      count: number;
      open: { protocol: string; streams: number; maxStreams: number }[];
      slowestGetMs: number;
      after: number;
    };
    expect(over.protocol).toBe('h2');
    expect(over.open.filter((c) => c.protocol === 'h2')).toHaveLength(2);
    for (const c of over.open) expect(c.streams).toBeLessThanOrEqual(c.maxStreams);
    expect(over.open.reduce((sum, c) => sum + c.streams, 0)).toBe(over.count);
    expect(over.slowestGetMs).toBeLessThan(2000);
    expect(over.after).toBe(0);
    const calls = driver.lines.find((l) => l.t === 'requests')?.calls;
    expect(calls).toEqual([
      'get:404',
      'create:201',
      'create:409',
      'patch:200',
      'update:409',
      'patch:200',
      'patch:200',
      'patch:500',
      'patch:500',
      'patch:201',
      'patch:500',
      'delete:200',
      'create:422',
      'list:200',
      'watch:200',
      'watch:200',
      'delete:200',
      'get:404',
    ]);
  });
});

describe('Informer', () => {
  test('lists in pages, then follows adds, updates and deletes across watch restarts and a relist', async () => {
    configMap('a', { v: '1' });
    for (let i = 1; i <= 5; i++) configMap(`p${i}`, { i: String(i) });
    configMap('other', { v: '1' }, 'someone-else');

    const d = start('informer-driver.ts', {
      namespace: ns,
      labelSelector: 'app=informer-test',
      watchTimeoutSeconds: 2,
      pageSize: 2,
      throwOn: 'throw-',
    });
    const synced = await d.waitFor(is('synced'), 'the first list');
    // Six objects in pages of two: three LIST requests; the other label is filtered out.
    expect(synced).toMatchObject({ size: 6, lists: 3 });
    const initial = d.lines.filter((l) => l.t === 'add').map((l) => l.name);
    expect(initial.sort()).toEqual(['a', 'p1', 'p2', 'p3', 'p4', 'p5']);
    // List items come without apiVersion/kind; the informer fills them in.
    expect(d.lines.find(is('add', 'a'))).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });

    configMap('b', { v: '1' });
    await d.waitFor(is('add', 'b'), 'the add of b');
    configMap('a', { v: '2' });
    const update = await d.waitFor(is('update', 'a', { v: '2' }), 'the update of a');
    expect(update.rv).not.toBe(update.oldRv);
    kubectl(['delete', 'configmap', 'b', '-n', ns]);
    await d.waitFor(is('delete', 'b'), 'the delete of b');

    // watchTimeoutSeconds 2: the server closes the watch within 2-4 s and the informer re-watches
    // from the last resourceVersion, missing nothing.
    const restart = await d.waitFor(
      (l) => l.t === 'restart' && l.reason === 'timeout',
      'a watch timeout',
      15_000,
    );
    const after = d.lines.indexOf(restart);
    configMap('c', { v: '1' });
    await d.waitFor(is('add', 'c'), 'the add of c after the restart', 15_000, after);

    // A handler that throws does not stop the informer.
    configMap('throw-1', { v: '1' });
    await d.waitFor(is('add', 'throw-1'), 'the add of throw-1');
    configMap('d', { v: '1' });
    await d.waitFor(is('add', 'd'), 'the add of d after a failing handler');
    await d.waitForLog(/"msg":"event handler failed".*"name":"throw-1"/, 'the failing handler logged');

    // Hold the watch, change things meanwhile, then resume from a resourceVersion that is far too
    // old: 410 Gone, relist, and what was missed is delivered from the diff.
    d.send('hold');
    await d.waitFor(is('holding'), 'hold');
    configMap('e', { v: '1' });
    configMap('c', { v: '2' });
    kubectl(['delete', 'configmap', 'a', '-n', ns]);
    const released = d.lines.length;
    d.send('release');
    await d.waitFor((l) => l.t === 'restart' && l.reason === 'expired', 'a 410 and relist', 15_000, released);
    await d.waitFor(is('add', 'e'), 'the missed add of e', 15_000, released);
    await d.waitFor(is('update', 'c', { v: '2' }), 'the missed update of c', 15_000, released);
    await d.waitFor(is('delete', 'a'), 'the missed delete of a', 15_000, released);
    // Unchanged objects are not re-delivered by the relist.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(d.lines.slice(released).filter((l) => /^p\d$/.test(String(l.name)))).toEqual([]);

    d.send('cache');
    const cache = await d.waitFor(is('cache'), 'the cache', 15_000, released);
    expect(cache.items).toEqual({
      c: { v: '2' },
      d: { v: '1' },
      e: { v: '1' },
      p1: { i: '1' },
      p2: { i: '2' },
      p3: { i: '3' },
      p4: { i: '4' },
      p5: { i: '5' },
      'throw-1': { v: '1' },
    });

    // resync re-delivers every cached object as an update to itself.
    const beforeResync = d.lines.length;
    d.send('resync');
    await d.waitFor(is('resynced'), 'resync', 15_000, beforeResync);
    const resynced = d.lines.slice(beforeResync).filter((l) => l.t === 'update');
    expect(resynced).toHaveLength(9);
    expect(resynced.every((l) => l.rv === l.oldRv)).toBe(true);

    d.send('stop');
    await d.waitFor(is('stopped'), 'stop');
    expect(await d.exited).toBe(0);
  });

  test('metadata only, with a label index that follows adds, label changes, deletes and a relist', async () => {
    const team = (name: string, value: string) =>
      applyYaml(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: ns, labels: { app: 'indexed', team: value } },
          data: { big: 'x'.repeat(1000) },
        }),
      );
    team('i1', 'red');
    team('i2', 'red');
    team('i3', 'blue');
    const d = start('informer-driver.ts', {
      namespace: ns,
      labelSelector: 'app=indexed',
      metadataOnly: true,
      indexLabel: 'team',
    });
    await d.waitFor(is('synced'), 'the first list');
    // The server sent metadata only: no data, and the PartialObjectMetadata kind.
    expect(d.lines.find(is('add', 'i1'))).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
    });
    expect(d.lines.find(is('add', 'i1'))?.data).toBeUndefined();
    const index = async (value: string) => {
      const from = d.lines.length;
      d.send(`index ${value}`);
      return (await d.waitFor(is('index'), `index ${value}`, 15_000, from)).names;
    };
    expect(await index('red')).toEqual(['i1', 'i2']);
    expect(await index('blue')).toEqual(['i3']);
    expect(await index('green')).toEqual([]);

    team('i2', 'blue');
    await d.waitFor((l) => l.t === 'update' && l.name === 'i2', 'the label change of i2');
    expect(d.lines.find((l) => l.t === 'update' && l.name === 'i2')?.kind).toBe('PartialObjectMetadata');
    expect(await index('red')).toEqual(['i1']);
    expect(await index('blue')).toEqual(['i2', 'i3']);
    kubectl(['delete', 'configmap', 'i3', '-n', ns]);
    await d.waitFor(is('delete', 'i3'), 'the delete of i3');
    expect(await index('blue')).toEqual(['i2']);

    // Changes missed while the watch is held come back through a relist, which rebuilds the index.
    d.send('hold');
    await d.waitFor(is('holding'), 'hold');
    team('i1', 'green');
    team('i4', 'red');
    const released = d.lines.length;
    d.send('release');
    await d.waitFor(is('add', 'i4'), 'the missed add of i4', 15_000, released);
    await d.waitFor((l) => l.t === 'update' && l.name === 'i1', 'the missed update of i1', 15_000, released);
    expect(await index('red')).toEqual(['i4']);
    expect(await index('green')).toEqual(['i1']);
    expect(await index('blue')).toEqual(['i2']);
    await d.kill();
  });

  test('a watch that stays silent is restarted by the watchdog and still delivers', async () => {
    const d = start('informer-driver.ts', {
      namespace: ns,
      labelSelector: 'app=quiet',
      watchTimeoutSeconds: 300,
      inactivityMs: 1500,
    });
    await d.waitFor(is('synced'), 'the first list');
    const restart = await d.waitFor(
      (l) => l.t === 'restart' && l.reason === 'inactive',
      'the watchdog',
      15_000,
    );
    configMap('quiet-1', { v: '1' }, 'quiet');
    await d.waitFor(is('add', 'quiet-1'), 'the add after the watchdog', 15_000, d.lines.indexOf(restart));
    await d.kill();
  });

  test('retries forever while the resource does not exist, and syncs once it does', async () => {
    const plural = uniqueName('widgets').replace(/-/g, '');
    // A group of its own per run: kubectl's discovery cache, which outlives a deleted CRD, would map a
    // reused group and kind to the previous run's plural.
    const group = `${plural}.informer-test.reconstruct.dev`;
    const d = start('informer-driver.ts', {
      namespace: ns,
      type: { apiVersion: `${group}/v1`, plural, namespaced: true },
    });
    // 404 on every LIST: backoff and retry, never give up.
    for (let i = 0; i < 3; i++) {
      await d.waitFor(
        (l) => l.t === 'restart' && l.reason === 'error',
        `failure ${i + 1}`,
        15_000,
        i === 0 ? 0 : d.lines.length,
      );
    }
    expect(d.lines.some(is('synced'))).toBe(false);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: {
          plural,
          singular: plural.slice(0, -1),
          kind: 'InformerWidget',
          listKind: 'InformerWidgetList',
        },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    try {
      applyYaml(JSON.stringify(crd));
      kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${plural}.${group}`]);
      await d.waitFor(is('synced'), 'the sync once the CRD exists', 30_000);
      // kubectl's discovery may lag behind a CRD that was just established.
      const widget = JSON.stringify({
        apiVersion: `${group}/v1`,
        kind: 'InformerWidget',
        metadata: { name: 'w1', namespace: ns },
      });
      await waitFor(() => kubectl(['apply', '-f', '-'], { input: widget, allowFail: true }).code === 0, {
        what: 'the InformerWidget to be created',
      });
      const add = await d.waitFor(is('add', 'w1'), 'the add of w1', 30_000);
      expect(add).toMatchObject({ kind: 'InformerWidget', apiVersion: `${group}/v1` });
    } finally {
      await d.kill();
      kubectl(['delete', 'crd', `${plural}.${group}`, '--ignore-not-found', '--wait=false'], {
        allowFail: true,
      });
    }
  });
});
