/**
 * `reconstruct migrate` before it reaches a cluster: its usage, how a KIND names a CRD, which CRDs `--all`
 * takes, the progress it prints, and a missing kubeconfig. The rewrite itself is tested on the local control
 * plane (migrate.cluster.test.ts); only the StorageVersionMigration path is tested here against a faked
 * API server, because the local control plane does not serve storagemigration.k8s.io.
 */
import { findCrds, migrateCommand, needsMigration, type LiveCrd } from '../../cli/migrate';
import { Progress } from '../../cli/migrate/pass';
import { answeringClient } from '../support/answering-client';
import { capture } from '../support/capture';

function io() {
  const out = capture();
  const err = capture();
  return { io: { out, err }, out, err };
}

function crd(
  group: string,
  kind: string,
  { shortNames = [], stored = ['v1'] }: { shortNames?: string[]; stored?: string[] } = {},
): LiveCrd {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames },
      versions: ['v1alpha1', 'v1'].map((name) => ({
        name,
        served: true,
        storage: name === 'v1',
        schema: { openAPIV3Schema: { type: 'object' } },
      })),
    },
    status: { storedVersions: stored },
  };
}

describe('reconstruct migrate: usage', () => {
  it('prints its help with -h, and exits 0', async () => {
    const { io: streams, out } = io();
    expect(await migrateCommand(['-h'], streams)).toBe(0);
    expect(out.text()).toMatch(/^Usage: reconstruct migrate KIND\.\.\./);
    expect(out.text()).toContain('resumed by running it again');
  });

  it.each([[[]], [['balancers', '--all']]])('refuses %j: KIND..., or --all (exit 2)', async (args) => {
    const { io: streams, err } = io();
    expect(await migrateCommand(args, streams)).toBe(2);
    expect(err.text()).toMatch(/^reconstruct migrate: give KIND\.\.\., or --all\n\nUsage:/);
  });

  it('refuses --kinds: a KIND is looked up among the CRDs of the cluster', async () => {
    const { io: streams, err } = io();
    expect(await migrateCommand(['balancers', '--kinds', 'kinds.js'], streams)).toBe(2);
    expect(err.text()).toBe(
      'reconstruct migrate: KIND names a CRD of the cluster: --kinds and --no-builtin-kinds do not apply\n',
    );
  });

  it('says in one line that the kubeconfig is missing (exit 2)', async () => {
    const { io: streams, err } = io();
    expect(await migrateCommand(['balancers', '--kubeconfig', '/nonexistent/kubeconfig'], streams)).toBe(2);
    expect(err.text()).toMatch(
      /^reconstruct migrate: kubeconfig \/nonexistent\/kubeconfig: cannot read it: .*\n$/,
    );
  });
});

describe('findCrds', () => {
  const crds = [
    crd('exposer.hliangzhao.io', 'Balancer', { shortNames: ['lb'] }),
    crd('cache.example.com', 'Memcached', { shortNames: ['mc'] }),
    crd('other.example.com', 'Memcached'),
  ];
  const names = (word: string) => findCrds(crds, word).map((c) => c.metadata.name);

  it.each([
    'balancers.exposer.hliangzhao.io',
    'Balancer',
    'balancers',
    'balancer',
    'lb',
    'lb.exposer.hliangzhao.io',
  ])('finds the CRD %s names', (word) => expect(names(word)).toEqual(['balancers.exposer.hliangzhao.io']));

  it('finds every CRD an ambiguous word names, and one with its group', () => {
    expect(names('memcached')).toEqual(['memcacheds.cache.example.com', 'memcacheds.other.example.com']);
    expect(names('memcached.other.example.com')).toEqual(['memcacheds.other.example.com']);
    expect(names('balancers.example.com')).toEqual([]);
  });
});

describe('needsMigration (--all)', () => {
  it.each([
    [['v1'], false],
    [['v1alpha1', 'v1'], true],
    [['v1alpha1'], true],
  ])('storedVersions %j with storage v1: %s', (stored, expected) => {
    expect(needsMigration(crd('g.io', 'Widget', { stored }))).toBe(expected);
  });
});

describe('Progress', () => {
  it('prints a line every 10 % when not on a terminal', () => {
    const out = capture();
    const progress = new Progress('widgets.g.io', { out, tty: false });
    progress.start(50);
    for (let i = 1; i <= 50; i++) progress.tick(i);
    progress.end('done');
    const lines = out.text().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'migrating widgets.g.io: 5/50 (10 %)',
      'migrating widgets.g.io: 10/50 (20 %)',
    ]);
    expect(lines.slice(9)).toEqual(['migrating widgets.g.io: 50/50 (100 %)', 'done', '']);
  });

  it('updates one line in place on a terminal, at most every 100 ms and at the end', () => {
    const out = capture();
    let now = 0;
    const progress = new Progress('widgets.g.io', { out, tty: true, now: () => now });
    progress.start(1000);
    for (let i = 1; i <= 1000; i++) {
      now += 1;
      progress.tick(i);
    }
    progress.end('migrated 1000');
    const draws = out.text().split('\r\x1b[2K');
    expect(draws[1]).toBe('migrating widgets.g.io: 1/1000');
    expect(draws[2]).toBe('migrating widgets.g.io: 101/1000');
    expect(draws.slice(-2)).toEqual(['migrating widgets.g.io: 1000/1000', 'migrated 1000\n']);
    expect(draws).toHaveLength(13);
  });

  it('clears the line for a failure, and counts without a total when the server gives none', () => {
    const out = capture();
    const progress = new Progress('widgets.g.io', { out, tty: true });
    progress.start(undefined);
    progress.tick(1);
    progress.clear();
    out.write('Widget ns/w-1: refused\n');
    progress.tick(2);
    expect(out.text()).toBe(
      '\r\x1b[2Kmigrating widgets.g.io: 1\r\x1b[2KWidget ns/w-1: refused\n\r\x1b[2Kmigrating widgets.g.io: 2',
    );
  });
});

describe('with StorageVersionMigration served', () => {
  /** An API server that serves storagemigration.k8s.io/v1beta1, its migrations ending as `outcome`. */
  function server(outcome: 'Succeeded' | 'Failed', allowed = true) {
    const widgets = crd('g.io', 'Widget', { stored: ['v1alpha1', 'v1'] });
    return answeringClient((req) => {
      const route = `${req.method} ${req.path}`;
      const migration = { metadata: { name: 'widgets.g.io-abcde' } };
      if (route === 'GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions')
        return { items: [widgets] };
      if (route === 'POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews')
        return { status: { allowed } };
      if (route === 'GET /apis/storagemigration.k8s.io')
        return { versions: [{ version: 'v1beta1' }, { version: 'v1alpha1' }] };
      if (route === 'POST /apis/storagemigration.k8s.io/v1beta1/storageversionmigrations') return migration;
      if (route === 'GET /apis/storagemigration.k8s.io/v1beta1/storageversionmigrations/widgets.g.io-abcde') {
        const condition = { type: outcome, status: 'True', message: 'conversion webhook refused' };
        return { ...migration, status: { conditions: [condition] } };
      }
      if (route === 'GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.g.io')
        return widgets;
      if (route === 'PUT /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.g.io/status')
        return req.body;
      throw new Error(`unexpected ${route}`);
    });
  }

  it('creates one for the resource, waits for it, then sets storedVersions', async () => {
    const { client, requests } = server('Succeeded');
    const { io: streams, out, err } = io();
    expect(await migrateCommand(['widget'], streams, () => client)).toBe(0);
    expect(err.text()).toBe('');
    const created = requests.find((r) => r.method === 'POST' && r.path.endsWith('/storageversionmigrations'));
    expect(created?.body).toMatchObject({
      apiVersion: 'storagemigration.k8s.io/v1beta1',
      kind: 'StorageVersionMigration',
      spec: { resource: { group: 'g.io', resource: 'widgets' } },
    });
    expect(requests.at(-1)?.body).toMatchObject({ status: { storedVersions: ['v1'] } });
    expect(out.text()).toMatch(/migrated widgets\.g\.io to v1 by a StorageVersionMigration in [\d.]+ s\n/);
    expect(out.text()).toMatch(/widgets\.g\.io: status\.storedVersions \[v1\]\n$/);
  });

  it('rewrites the objects itself when the caller may not create one, or with --client-side', async () => {
    const denied = server('Succeeded', false);
    const streams = io();
    expect(await migrateCommand(['widget'], streams.io, () => denied.client)).toBe(2);
    expect(streams.out.text()).toBe(
      'migrating widgets.g.io: the caller may not create storageversionmigrations.storagemigration.k8s.io: ' +
        'rewriting the objects here\n',
    );
    // The pass's own permissions are denied too here: said in one line, before any object is read.
    expect(streams.err.text()).toBe(
      'reconstruct migrate: forbidden: the caller may not update widgets.g.io, nor update ' +
        'customresourcedefinitions.apiextensions.k8s.io/status\n',
    );

    const asked = server('Succeeded');
    expect(await migrateCommand(['widget', '--client-side'], io().io, () => asked.client)).toBe(2);
    expect(asked.requests.filter((r) => r.path.includes('storagemigration'))).toEqual([]);
  });

  it('says why it failed, exits 1 and leaves storedVersions', async () => {
    const { client, requests } = server('Failed');
    const { io: streams, err } = io();
    expect(await migrateCommand(['widgets.g.io'], streams, () => client)).toBe(1);
    expect(err.text()).toBe(
      'widgets.g.io: StorageVersionMigration widgets.g.io-abcde failed: conversion webhook refused\n',
    );
    expect(requests.some((r) => r.method === 'PUT')).toBe(false);
  });
});
