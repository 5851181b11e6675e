/**
 * `reconstruct migrate KIND...`: rewrites every stored object of a custom resource in its CRD's storage
 * version, then sets the CRD's `status.storedVersions` to that version alone, after which the old versions
 * may be dropped from the CRD (Kubernetes' "Upgrade existing objects to a new stored version"). Works on
 * any CRD of the cluster. Where the API server serves `storagemigration.k8s.io`, a StorageVersionMigration
 * does the rewrite; elsewhere the command's own pass (./migrate/pass), which is resumable: run it again,
 * and what is stored in the storage version already is read but not written.
 */
import { CUSTOM_RESOURCE_DEFINITION, type ApiKind, type CustomResourceDefinition } from '../constructs/kit';
import { sleep } from '../controller/abortable';
import { loadClient, type ClientOptions, type KubeClient } from '../controller/kube/client';
import { isConflict, isNotFound } from '../controller/kube/errors';
import { resourcePath } from '../controller/kube/paths';
import { parseCommand, STDIO } from './kinds';
import { Progress, rewriteAll } from './migrate/pass';
import type { Io } from './operate/target';

const HELP = `Usage: reconstruct migrate KIND... [--kubeconfig FILE] [--context NAME]
       reconstruct migrate --all

Rewrites every stored object of a custom resource in the storage version of its CustomResourceDefinition,
then sets the CRD's status.storedVersions to that version alone: what Kubernetes asks before an old version
can be removed from a CRD. KIND is a CRD name (widgets.example.com), or a kind, plural, singular or short
name of one, optionally followed by its group (Widget, widgets, widgets.example.com). Any CRD of the
cluster, this operator's or not.

Where the API server serves storagemigration.k8s.io, a StorageVersionMigration rewrites the objects and the
command waits for it (it starts once kube-controller-manager's garbage collector has caught up with the
resource, often a minute). Elsewhere, or with --client-side, the command reads the objects, 500 at a time, and writes each back as it was
read (an update with its resourceVersion: one changed meanwhile is read again and written, one deleted is
skipped). The API server stores what it writes in the storage version, and writes nothing for an object
already stored in it (its resourceVersion stays): a run that stopped, or that failed on some objects, is
resumed by running it again, and only what is left is rewritten.

An object that cannot be written (a conversion webhook's error, an admission's refusal) is named with the
API server's message; the others are still rewritten, and status.storedVersions is left as it was.
Run it once the API servers serve the CRD's new storage version (a few seconds after the CRD changed).

Options:
  --all                 every CRD whose status.storedVersions lists a version besides its storage version
  --client-side         rewrite the objects from here even where a StorageVersionMigration could (as
                        when the caller may not create one)
  --kubeconfig FILE     kubeconfig file [KUBECONFIG, then ~/.kube/config]
  --context NAME        kubeconfig context (default: its current context)
  -h, --help            show this help

Needs list, get and update on the resources and update on customresourcedefinitions/status (with a
StorageVersionMigration: create and get on storageversionmigrations instead of the update on the resources).

Exit status: 0 when every object is stored in the storage version and storedVersions says so, 1 when an
object could not be rewritten, 2 on a usage error or a missing prerequisite (no kubeconfig, no such CRD,
forbidden).
`;

const OPTIONS = {
  all: { type: 'boolean' },
  'client-side': { type: 'boolean' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;

/** A CustomResourceDefinition as the API server returns it. */
export type LiveCrd = CustomResourceDefinition & {
  metadata: { resourceVersion?: string };
  status?: { storedVersions?: string[] };
};

const CRDS = resourcePath(CUSTOM_RESOURCE_DEFINITION);
const MIGRATIONS_GROUP = 'storagemigration.k8s.io';

/** The version the CRD stores objects in. */
export const storageVersion = (crd: LiveCrd): string | undefined =>
  crd.spec.versions.find((v) => v.storage)?.name;

/** Whether status.storedVersions lists anything but the storage version: what `--all` migrates. */
export function needsMigration(crd: LiveCrd): boolean {
  const stored = crd.status?.storedVersions ?? [];
  return stored.length > 1 || (stored.length === 1 && stored[0] !== storageVersion(crd));
}

/**
 * The CRDs `word` names, as kubectl resolves a resource: the CRD name, or a kind, plural, singular or short
 * name (case-insensitive), followed by `.group` or not. More than one when the word is ambiguous.
 */
export function findCrds(crds: readonly LiveCrd[], word: string): LiveCrd[] {
  const w = word.toLowerCase();
  const byName = crds.filter((c) => c.metadata.name === w);
  if (byName.length > 0) return byName;
  const [name, ...rest] = w.split('.');
  const group = rest.join('.');
  return crds.filter(
    ({ spec }) =>
      (!group || spec.group === group) &&
      [
        spec.names.kind.toLowerCase(),
        spec.names.plural,
        spec.names.singular,
        ...(spec.names.shortNames ?? []),
      ].includes(name),
  );
}

/** The resource's REST type in a version the API server serves: the storage version, if it is served. */
function servedType(crd: LiveCrd, storage: string): ApiKind | undefined {
  const version =
    crd.spec.versions.find((v) => v.name === storage && v.served) ?? crd.spec.versions.find((v) => v.served);
  if (!version) return undefined;
  const { group, names, scope } = crd.spec;
  return {
    apiVersion: `${group}/${version.name}`,
    kind: names.kind,
    plural: names.plural,
    namespaced: scope === 'Namespaced',
  };
}

export async function migrateCommand(
  argv: string[],
  io: Io = STDIO,
  connect: (options: ClientOptions) => KubeClient = loadClient,
): Promise<number> {
  const parsed = parseCommand('migrate', HELP, argv, OPTIONS, io, true);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (values.kinds || values['no-builtin-kinds']) {
    io.err.write(
      `reconstruct migrate: KIND names a CRD of the cluster: --kinds and --no-builtin-kinds do not apply\n`,
    );
    return 2;
  }
  if (values.all ? positionals.length > 0 : positionals.length === 0) {
    io.err.write(`reconstruct migrate: give KIND..., or --all\n\n${HELP}`);
    return 2;
  }
  try {
    const client = connect({
      kubeconfig: values.kubeconfig,
      context: values.context,
      userAgent: 'reconstruct-migrate',
    });
    const crds = (await client.request<{ items: LiveCrd[] }>({ method: 'GET', path: CRDS })).items;
    const chosen = values.all ? crds.filter(needsMigration) : resolve(crds, positionals, io);
    if (typeof chosen === 'number') return chosen;
    if (chosen.length === 0) {
      io.out.write(`nothing to migrate: every CRD's status.storedVersions is its storage version\n`);
      return 0;
    }
    const migrations = values['client-side'] ? undefined : await migrationVersion(client);
    let status = 0;
    for (const crd of chosen) status = Math.max(status, await migrate(client, crd, migrations, io));
    return status;
  } catch (e) {
    io.err.write(`reconstruct migrate: ${(e as Error).message}\n`);
    return 2;
  }
}

/** The CRDs the words name, each once; or exit status 2 once it said which word names none, or several. */
function resolve(crds: readonly LiveCrd[], words: readonly string[], io: Io): LiveCrd[] | number {
  const chosen = new Map<string, LiveCrd>();
  for (const word of words) {
    const found = findCrds(crds, word);
    if (found.length !== 1) {
      io.err.write(
        found.length === 0
          ? `reconstruct migrate: no CustomResourceDefinition "${word}" in the cluster (give a CRD name, or a kind, plural or short name of one)\n`
          : `reconstruct migrate: "${word}" names ${found.length} CRDs (${found.map((c) => c.metadata.name).join(', ')}): give the CRD name\n`,
      );
      return 2;
    }
    chosen.set(found[0].metadata.name, found[0]);
  }
  return [...chosen.values()];
}

/** One CRD: its objects rewritten, then its storedVersions; the exit status. */
async function migrate(
  client: KubeClient,
  crd: LiveCrd,
  migrations: string | undefined,
  io: Io,
): Promise<number> {
  const name = crd.metadata.name;
  const storage = storageVersion(crd);
  const type = storage && servedType(crd, storage);
  if (!storage || !type) {
    io.err.write(`reconstruct migrate: ${name} has no storage version, or serves no version\n`);
    return 2;
  }
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  let byServer: Awaited<ReturnType<typeof serverSide>> = 'unserved';
  if (migrations) {
    const missing = await missingPermissions(client, crd, [
      { verb: 'create', group: MIGRATIONS_GROUP, resource: 'storageversionmigrations' },
    ]);
    if (missing.length > 0)
      io.out.write(`migrating ${name}: the caller may not ${missing[0]}: rewriting the objects here\n`);
    else byServer = await serverSide(client, crd, storage, migrations, io);
  }
  if (byServer === 'failed') return 1;
  if (byServer === 'succeeded') {
    io.out.write(`migrated ${name} to ${storage} by a StorageVersionMigration in ${seconds()} s\n`);
  } else {
    const missing = await missingPermissions(client, crd, passPermissions(crd));
    if (missing.length > 0) {
      io.err.write(`reconstruct migrate: forbidden: the caller may not ${missing.join(', nor ')}\n`);
      return 2;
    }
    const progress = new Progress(name, { out: io.out, tty: (io.out as { isTTY?: boolean }).isTTY === true });
    const c = await rewriteAll(client, type, progress, (f) =>
      io.err.write(`${f.object}: ${f.message}\n`),
    ).finally(() => progress.clear());
    progress.end(
      `migrated ${name} to ${storage}: ${c.total} objects, ${c.rewritten} rewritten, ${c.unchanged} already ` +
        `stored in ${storage}, ${c.gone} gone, ${c.failed} failed, in ${seconds()} s`,
    );
    if (c.failed > 0) {
      io.err.write(
        `${name}: ${c.failed} of ${c.total} objects not rewritten: status.storedVersions left as ` +
          `[${(crd.status?.storedVersions ?? []).join(', ')}] (fix them and run again: the rest is not written again)\n`,
      );
      return 1;
    }
  }
  const stored = await setStoredVersions(client, name, storage);
  if (typeof stored === 'string') {
    io.err.write(
      `${name}: the storage version changed from ${storage} to ${stored} meanwhile: run migrate again\n`,
    );
    return 1;
  }
  io.out.write(`${name}: status.storedVersions [${stored.join(', ')}]\n`);
  return 0;
}

/** The version of storagemigration.k8s.io the API server serves, v1beta1 before v1alpha1; or undefined. */
async function migrationVersion(client: KubeClient): Promise<string | undefined> {
  try {
    const group = await client.request<{ versions?: { version: string }[] }>({
      method: 'GET',
      path: `/apis/${MIGRATIONS_GROUP}`,
    });
    const served = new Set((group.versions ?? []).map((v) => v.version));
    return ['v1beta1', 'v1alpha1'].find((v) => served.has(v));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

interface Migration {
  metadata: { name: string };
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

/** How long a StorageVersionMigration may go without any condition before the command does it itself. */
const MIGRATOR_SILENCE_MS = 60_000;

/**
 * Creates a StorageVersionMigration for the CRD's resource and waits for it: whether it succeeded, failed,
 * or got no condition within a minute (the API is served but no migrator runs, as where the feature gate
 * is on in the API server only): then the command's own pass does the work.
 */
async function serverSide(
  client: KubeClient,
  crd: LiveCrd,
  storage: string,
  version: string,
  io: Io,
  silenceMs = MIGRATOR_SILENCE_MS,
): Promise<'succeeded' | 'failed' | 'unserved'> {
  const { group, names } = crd.spec;
  const path = `/apis/${MIGRATIONS_GROUP}/${version}/storageversionmigrations`;
  const created = await client.request<Migration>({
    method: 'POST',
    path,
    body: {
      apiVersion: `${MIGRATIONS_GROUP}/${version}`,
      kind: 'StorageVersionMigration',
      metadata: { generateName: `${crd.metadata.name.slice(0, 200)}-` },
      // v1alpha1 names the version the migrator reads and writes through; v1beta1 only the resource.
      spec: {
        resource:
          version === 'v1alpha1'
            ? { group, version: storage, resource: names.plural }
            : { group, resource: names.plural },
      },
    },
  });
  const what = `StorageVersionMigration ${created.metadata.name}`;
  io.out.write(`migrating ${crd.metadata.name}: ${what} created\n`);
  let said = '';
  const since = Date.now();
  for (;;) {
    const now = await client.request<Migration>({ method: 'GET', path: `${path}/${created.metadata.name}` });
    const conditions = (now.status?.conditions ?? []).filter((c) => c.status === 'True');
    const failed = conditions.find((c) => c.type === 'Failed');
    if (failed) {
      io.err.write(`${crd.metadata.name}: ${what} failed: ${failed.message ?? 'no message'}\n`);
      return 'failed';
    }
    if (conditions.some((c) => c.type === 'Succeeded')) return 'succeeded';
    if ((now.status?.conditions ?? []).length === 0 && Date.now() - since >= silenceMs) {
      io.out.write(
        `migrating ${crd.metadata.name}: no migrator took ${what} up in ${silenceMs / 1000} s: rewriting the objects here\n`,
      );
      return 'unserved';
    }
    const state =
      conditions.map((c) => c.type).join(', ') ||
      'no condition yet (does kube-controller-manager run the migrator?)';
    if (state !== said) io.out.write(`migrating ${crd.metadata.name}: ${what}: ${state}\n`);
    said = state;
    await sleep(1000);
  }
}

interface Permission {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
}

/** What the pass does: update the objects, and the CRD's status. */
const passPermissions = (crd: LiveCrd): Permission[] => [
  { verb: 'update', group: crd.spec.group, resource: crd.spec.names.plural },
  {
    verb: 'update',
    group: 'apiextensions.k8s.io',
    resource: 'customresourcedefinitions',
    subresource: 'status',
  },
];

/**
 * What the caller may not do of `checks` (SelfSubjectAccessReview), said once rather than as a refusal per
 * object. A review the server does not answer counts as allowed: the requests will tell.
 */
async function missingPermissions(client: KubeClient, crd: LiveCrd, checks: Permission[]): Promise<string[]> {
  const missing: string[] = [];
  for (const attributes of checks) {
    const allowed = await client
      .request<{ status?: { allowed?: boolean } }>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: {
              ...attributes,
              name: attributes.subresource ? crd.metadata.name : undefined,
            },
          },
        },
      })
      .then(
        (review) => review.status?.allowed === true,
        () => true,
      );
    if (!allowed) {
      const { verb, resource, group, subresource } = attributes;
      missing.push(`${verb} ${resource}.${group}${subresource ? `/${subresource}` : ''}`);
    }
  }
  return missing;
}

/**
 * Sets the CRD's status.storedVersions to `[storage]` (an update of its status with the resourceVersion
 * read: a conflict reads it again). The list then; or, when the CRD has another storage version by now
 * (objects may have been stored in it during the pass), that version, and nothing is written.
 */
async function setStoredVersions(
  client: KubeClient,
  name: string,
  storage: string,
): Promise<string[] | string> {
  const path = resourcePath(CUSTOM_RESOURCE_DEFINITION, undefined, name);
  for (let attempt = 1; ; attempt++) {
    const crd = await client.request<LiveCrd>({ method: 'GET', path });
    const now = storageVersion(crd);
    if (now !== storage) return now ?? 'none';
    const stored = crd.status?.storedVersions ?? [];
    if (stored.length === 1 && stored[0] === storage) return stored;
    try {
      const written = await client.request<LiveCrd>({
        method: 'PUT',
        path: `${path}/status`,
        body: { ...crd, status: { ...crd.status, storedVersions: [storage] } },
      });
      return written.status?.storedVersions ?? [];
    } catch (err) {
      if (!isConflict(err) || attempt >= 5) throw err;
    }
  }
}
