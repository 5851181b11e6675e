/**
 * Health others read right, as a table: every built-in kind's resource through its life on the local
 * control plane (creating, ready, failing, suspended, deleting), each status recorded as the API server
 * serves it (a watch of the resource sees every version the controller writes), then judged by Argo CD's
 * own health evaluation with the checks `reconstruct install --argocd-health` renders, and by kstatus
 * (scripts/health: their Go packages, built from the Go module proxy). Each must give the verdict we
 * intend (docs/OPERATING.md, "In Argo CD and Flux").
 *
 * Failing is a lasting failure of each kind: a child whose name another object holds (ErrResourceExists)
 * for the kinds with children, credentials the server refuses (AccessDenied) for the MySQL kinds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { builtinKinds } from '../../constructs/builtin';
import { synthesize, type CustomResource, type Kind, type Manifest } from '../../constructs/kit';
import { argocdHealthConfigMap } from '../../controller/health/argocd';
import { nextStatus } from '../../controller/reconcile/status';
import { MARIADB_START_TIMEOUT, startMariadb, type MariadbServer } from '../../demo/mariadb';
import { startController, type RunningController } from '../support/controller';
import { verdictsBinary, verdictsOf, type Verdicts } from '../support/health-verdicts';
import { versions as watchVersions } from '../support/versions';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  uniqueName,
} from '../support/kubectl';

jest.setTimeout(600_000);

type Obj = CustomResource & {
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
};
type Phase = 'created' | 'creating' | 'ready' | 'failing' | 'suspended' | 'deleting';

/** The verdicts we intend, by phase. */
const INTENDED: Record<Phase, { argocd: string; kstatus: string }> = {
  // As the API server returns it at its creation, before the controller's first status: kstatus's own
  // rule calls a resource with no observedGeneration and no condition Current (docs/OPERATING.md).
  created: { argocd: 'Progressing', kstatus: 'Current' },
  creating: { argocd: 'Progressing', kstatus: 'InProgress' },
  ready: { argocd: 'Healthy', kstatus: 'Current' },
  failing: { argocd: 'Degraded', kstatus: 'Failed' },
  suspended: { argocd: 'Suspended', kstatus: 'Current' },
  deleting: { argocd: 'Progressing', kstatus: 'Terminating' },
};

const HOLD = 'reconstruct.dev/test-hold';
const sample = (file: string) =>
  parse(readFileSync(join(__dirname, '../../samples', file), 'utf8')) as Obj & {
    spec: Record<string, unknown>;
  };
const kindOf = (name: string): Kind => builtinKinds.find((k) => k.kind === name)!;
const condition = (o: Obj, type: string) => o.status?.conditions?.find((c) => c.type === type);

let ns: string;
let server: MariadbServer;
let controller: RunningController;
let binary: string;

beforeAll(async () => {
  binary = verdictsBinary(); // built while nothing else runs: its first build takes minutes
  server = await startMariadb();
  ns = createNamespace('health');
  const { host, port, username, password } = server;
  const secret = (name: string, pw: string) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns },
      stringData: { host, port: String(port), username, password: pw },
    });
  applyYaml(secret('mysql-admin', password));
  applyYaml(secret('mysql-refused', `${password}-not`));
  controller = await startController(['--namespaces', ns]);
}, MARIADB_START_TIMEOUT + 600_000);

afterAll(async () => {
  uncordon();
  // What a failed case left goes while the controller runs: their finalizers would hold it.
  if (ns && controller) {
    const leftovers = ['mysqlusers,mysqldatabases', '--all', '-n', ns, '--timeout=60s'];
    kubectl(['delete', ...leftovers], { allowFail: true });
    kubectl(['delete', 'nodepools', '-l', `reconstruct.dev/test=${ns}`, '--timeout=60s'], {
      allowFail: true,
    });
  }
  await controller?.stop();
  if (ns) deleteNamespace(ns);
  await server?.destroy();
}, 180_000);

/** Every version of one resource from now on (test/support/versions.ts). */
const versions = (kind: Kind, name: string) =>
  watchVersions<Obj>(
    `/apis/${kind.apiVersion}/${kind.namespaced ? `namespaces/${ns}/` : ''}${kind.plural}`,
    name,
  );

const notReadyYet = (o: Obj) =>
  o.status?.observedGeneration !== undefined && condition(o, 'Ready')?.status === 'False';
const isReady = (o: Obj) =>
  o.status?.observedGeneration === o.metadata.generation && condition(o, 'Ready')?.status === 'True';

interface Case {
  readonly kind: string;
  readonly file: string;
  /** A spec for the phases' resource (default the sample's). */
  readonly spec?: (name: string) => Record<string, unknown>;
  /**
   * Its children run pods, which kwok's nodes start within a second: the resource may be Ready by its first
   * status. Its nodes are cordoned until a status says it is on its way (its pods not scheduled yet).
   */
  readonly pods?: boolean;
  /**
   * Why the resource's first status says Ready already, with no `creating` phase to record: the controller
   * writes no status until the children it created answer.
   */
  readonly readyAtOnce?: string;
  /** Made ready for the resource named `name` before it is created, and undone after (a member node). */
  readonly around?: { before(name: string): void; after(name: string): void };
  /** The failing resource: for a kind with children, one whose first child another object holds. */
  readonly failing: 'taken-child' | { spec: (name: string) => Record<string, unknown> };
}

const CASES: Case[] = [
  { kind: 'Memcached', file: 'memcached.yaml', pods: true, failing: 'taken-child' },
  {
    kind: 'DatabaseManager',
    pods: true,
    file: 'database-manager.yaml',
    spec: (name) => ({ ...sample('database-manager.yaml').spec, deploymentName: name }),
    failing: 'taken-child',
  },
  { kind: 'Balancer', file: 'balancer.yaml', pods: true, failing: 'taken-child' },
  {
    kind: 'Cluster',
    file: 'mysql-cluster.yaml',
    spec: () => ({ members: 1 }),
    pods: true,
    failing: 'taken-child',
  },
  {
    kind: 'NodePool',
    file: 'node-pool.yaml',
    // A member to label (no taint: other tests schedule on these nodes), so that it has work to do.
    spec: (name) => ({ labels: { [`${name}.example.com/tier`]: 'gold' }, handler: 'runc' }),
    readyAtOnce: 'its member is labelled within the reconcile that creates its RuntimeClass',
    around: {
      before: (name) => kubectl(['label', 'node', memberNode(), `node-role.kubernetes.io/${name}=`]),
      after: (name) => kubectl(['label', 'node', memberNode(), `node-role.kubernetes.io/${name}-`]),
    },
    failing: 'taken-child',
  },
  {
    kind: 'MysqlDatabase',
    file: 'mysql-database.yaml',
    failing: { spec: () => ({ serverSecretRef: { name: 'mysql-refused' } }) },
  },
  {
    kind: 'MysqlUser',
    file: 'mysql-user.yaml',
    spec: () => ({ serverSecretRef: { name: 'mysql-admin' }, grants: [] }),
    failing: { spec: () => ({ serverSecretRef: { name: 'mysql-refused' }, grants: [] }) },
  },
];

/** A resource of the case's kind named `name`, in the test's namespace when the kind is namespaced. */
function resourceOf(c: Case, name: string, spec?: Record<string, unknown>): Obj {
  const base = sample(c.file);
  const kind = kindOf(c.kind);
  return {
    apiVersion: base.apiVersion,
    kind: base.kind,
    metadata: {
      name,
      ...(kind.namespaced ? { namespace: ns } : { labels: { 'reconstruct.dev/test': ns } }),
    },
    spec: spec ?? c.spec?.(name) ?? base.spec,
  };
}

/** The first child the construct renders for `resource` but a Secret, made by someone else first. */
function takeFirstChild(kind: Kind, resource: Obj): Manifest {
  const children = synthesize(kind, resource);
  const child = children.find((m) => m.kind !== 'Secret') ?? children[0];
  // Without our labels and annotations: an object of someone else's.
  const namespaced = kind.namespaced && child.kind !== 'RuntimeClass';
  const metadata = { name: child.metadata.name, ...(namespaced ? { namespace: ns } : {}) };
  const taken = { ...child, metadata };
  applyYaml(JSON.stringify(taken));
  return taken;
}

/** The nodes this test cordoned, to uncordon whatever happens. */
let cordoned: string[] = [];
const cordon = () => {
  const nodes = getJson<{ items: (Obj & { spec?: { unschedulable?: boolean } })[] }>(['nodes']).items;
  for (const node of nodes.filter((n) => !n.spec?.unschedulable)) {
    kubectl(['cordon', node.metadata.name]);
    cordoned.push(node.metadata.name);
  }
};
const uncordon = () => {
  for (const node of cordoned) kubectl(['uncordon', node]);
  cordoned = [];
};

const memberNode = () => getJson<{ items: Obj[] }>(['nodes']).items[0].metadata.name;

/** The statuses of one kind's life, recorded from the cluster, by phase. */
async function record(c: Case): Promise<Partial<Record<Phase, Obj>>> {
  const kind = kindOf(c.kind);
  const name = uniqueName(c.kind.toLowerCase()).slice(0, 40);
  const watches: { stop(): void }[] = [];
  const watch = (resource: string) => {
    const w = versions(kind, resource);
    watches.push(w);
    return w;
  };
  try {
    return {
      failing: await failing(c, kind, `${name}-f`, watch(`${name}-f`)),
      ...(await life(c, kind, name, watch(name))),
    };
  } finally {
    for (const w of watches) w.stop();
  }
}

type Versions = ReturnType<typeof versions>;
const refOf = (kind: Kind, name: string) => [
  `${kind.plural}.${kind.group}`,
  name,
  ...(kind.namespaced ? ['-n', ns] : []),
];

/** A resource that cannot get where its spec says until something changes: its Stalled status. */
async function failing(c: Case, kind: Kind, name: string, seen: Versions): Promise<Obj> {
  const resource =
    c.failing === 'taken-child' ? resourceOf(c, name) : resourceOf(c, name, c.failing.spec(name));
  const taken = c.failing === 'taken-child' ? takeFirstChild(kind, resource) : undefined;
  await seen.established();
  applyYaml(JSON.stringify(resource));
  const stalled = await seen.first('Stalled', (o) => condition(o, 'Stalled')?.status === 'True');
  // Mended first where its deletion needs what it lacked (an external object is deleted with the server's
  // account, which the refused Secret does not give).
  const ref = refOf(kind, name);
  if (!taken)
    kubectl(['patch', ...ref, '--type=merge', '-p', JSON.stringify({ spec: resourceOf(c, name).spec })]);
  kubectl(['delete', ...ref, '--timeout=60s']);
  if (taken?.kind === 'RuntimeClass') kubectl(['delete', 'runtimeclass', taken.metadata.name]);
  return stalled;
}

/** Creating, ready, suspended, deleting: the statuses of one resource's life. */
async function life(c: Case, kind: Kind, name: string, seen: Versions): Promise<Partial<Record<Phase, Obj>>> {
  const ref = refOf(kind, name);
  c.around?.before(name);
  if (c.pods) cordon();
  await seen.established();
  applyYaml(JSON.stringify(resourceOf(c, name)));
  const created = await seen.first(
    'created',
    (o) => o.status === undefined || Object.keys(o.status).length === 0,
  );
  let creating: Obj | undefined;
  try {
    creating = c.readyAtOnce ? undefined : await seen.first('Ready=False', notReadyYet);
  } finally {
    uncordon();
  }
  const ready = await seen.first('Ready=True', isReady, 240_000);
  kubectl(['annotate', ...ref, 'reconstruct.dev/reconcile=disabled']);
  const suspended = await seen.first('Suspended', (o) => condition(o, 'Suspended')?.status === 'True');
  kubectl(['annotate', ...ref, 'reconstruct.dev/reconcile-']);
  // Deleting: held by a finalizer of the test's once the controller has done its part.
  const finalizers = getJson<Obj>(ref).metadata.finalizers ?? [];
  kubectl([
    'patch',
    ...ref,
    '--type=merge',
    '-p',
    JSON.stringify({ metadata: { finalizers: [...finalizers, HOLD] } }),
  ]);
  kubectl(['delete', ...ref, '--wait=false']);
  const deleting = await seen.first(
    'deletion with only the test finalizer left',
    (o) => o.metadata.deletionTimestamp !== undefined && (o.metadata.finalizers ?? []).join() === HOLD,
  );
  kubectl(['patch', ...ref, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  c.around?.after(name);
  return { created, ...(creating ? { creating } : {}), ready, suspended, deleting };
}

describe("every kind's status through its life, as Argo CD and kstatus read it", () => {
  const argocdCm = argocdHealthConfigMap(builtinKinds);
  const said = (phases: readonly Phase[]) =>
    phases.map((p) => `${INTENDED[p].argocd}/${INTENDED[p].kstatus}`);
  for (const c of CASES) {
    const phases = (Object.keys(INTENDED) as Phase[]).filter((p) => !(p === 'creating' && c.readyAtOnce));
    it(`${c.kind}: ${said(phases).join(', ')}`, async () => {
      const statuses = await record(c);
      const verdicts = verdictsOf(
        binary,
        argocdCm,
        phases.map((p) => statuses[p]!),
      );
      const got = Object.fromEntries(phases.map((p, i) => [p, brief(verdicts[i])]));
      const intended = Object.fromEntries(phases.map((p) => [p, INTENDED[p]]));
      expect(got).toEqual(intended);
      // Argo CD's message is the status's own words.
      const message = (p: Phase) => verdicts[phases.indexOf(p)].argocd.message;
      expect(message('failing')).toBe(condition(statuses.failing!, 'Stalled')?.message);
      expect(message('ready')).toBe(condition(statuses.ready!, 'Ready')?.message);
    });
  }
});

describe('a resource held back by a rollout, as the controller writes its status', () => {
  it('is Suspended/InProgress while it waits its turn, Degraded/Failed once the rollout stopped', () => {
    const resource: CustomResource = {
      apiVersion: 'cache.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name: 'cache', namespace: 'default', generation: 2 },
      spec: { size: 1 },
    };
    const ready = { ready: true, reason: 'Ready', message: '1 of 1 ready' };
    const held = (reason: string) => ({
      ...resource,
      status: nextStatus(resource, {}, ready, new Date(), [
        { type: 'Rollout', status: 'False', reason, message: `revision 2: ${reason}` },
      ]),
    });
    const verdicts = verdictsOf(binary, argocdHealthConfigMap(builtinKinds), [
      held('Waiting'),
      held('Stopped'),
    ]);
    expect(verdicts.map(brief)).toEqual([
      { argocd: 'Suspended', kstatus: 'InProgress' },
      { argocd: 'Degraded', kstatus: 'Failed' },
    ]);
    expect(verdicts.map((v) => v.argocd.message)).toEqual(['revision 2: Waiting', 'revision 2: Stopped']);
  });
});

const brief = (v: Verdicts) => ({ argocd: v.argocd.status, kstatus: v.kstatus.status });
