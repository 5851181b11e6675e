/**
 * The dev loop's decisions, on stand-ins of the project's build and of the cluster (cli/dev/ports.ts): what
 * runs, what waits, what is said, after each type check and each save of a sample. gen writes into a
 * temporary folder, for real.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KindsError } from '../../../constructs/kind-modules';
import { KindRegistry, defineKind, type Kind } from '../../../constructs/kit';
import { DevLoop } from '../../../cli/dev/loop';
import { planArtifacts } from '../../../cli/gen';
import type { DevBuild, DevCluster } from '../../../cli/dev/ports';
import { greetingKind, greetingOptions, greetingSchema } from '../../fixtures/kinds/greeting';

/** The Greeting kind with a field `team` added to its schema: a CRD that changed. */
const withTeam = defineKind({
  ...greetingOptions,
  schema: {
    ...greetingSchema,
    spec: {
      ...greetingSchema.spec,
      properties: { ...greetingSchema.spec.properties, team: { type: 'string', enum: ['web'] } },
    },
  },
});

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'dev-loop-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A build whose sources say `kinds` and were read as `source`; `failure` makes the load throw. */
class Build implements DevBuild {
  kinds: Kind[] = [greetingKind];
  source = 'v1';
  failure: string | undefined;
  /** Types gen would write next, besides the CRDs (which it renders for real). */
  types: [string, string][] = [];
  plan = async (kinds: readonly Kind[]) => {
    const plan = await planArtifacts(kinds, join(dir, 'crds'), undefined);
    return { ...plan, drifted: [...plan.drifted, ...this.types.splice(0)] };
  };
  load = () =>
    this.failure
      ? Promise.reject(new KindsError(this.failure))
      : Promise.resolve(new KindRegistry(this.kinds));
  fingerprint = () => this.source;
}

/** A cluster that records what is asked of it. */
class Cluster implements DevCluster {
  readonly calls: string[] = [];
  refused: string[] = [];
  runningNow = false;
  private readonly record = <T>(call: string, value: T) => {
    this.calls.push(call);
    return Promise.resolve(value);
  };
  readonly controller = {
    run: () => {
      this.runningNow = true;
      return this.record('run', { readyMs: 5 });
    },
    running: false,
  };
  constructor() {
    Object.defineProperty(this.controller, 'running', { get: () => this.runningNow });
  }
  refusals = (k: Kind) => this.record(`refusals ${k.kind}`, this.refused);
  install = (k: Kind) => this.record(`install ${k.crd.metadata.name}`, undefined);
  changes = () =>
    this.record('changes', '  Greeting default/hello\n    ~ ConfigMap hello-greeting (update)\n');
  trees = () => this.record('trees', { text: 'Greeting default/hello  Ready=True', ready: true });
  applySamples = () => this.record('samples', { ok: true, output: 'greeting/hello serverside-applied' });
}

function setUp() {
  const build = new Build();
  const cluster = new Cluster();
  const said: string[] = [];
  const loop = new DevLoop({
    projectDir: dir,
    build,
    cluster,
    out: (text) => said.push(text),
    followMs: 1_000,
  });
  const check = async (errors: string[] = []) => {
    said.length = 0;
    cluster.calls.length = 0;
    loop.checked({ errors }, Date.now());
    await loop.idle();
    await new Promise((resolve) => setImmediate(resolve)); // the live tree's first look
  };
  return { build, cluster, loop, said, check, text: () => said.join('') };
}

describe('the dev loop', () => {
  it('first build: writes the CRD, installs it, runs the controller, applies the samples, shows the tree', async () => {
    const { cluster, check, text } = setUp();
    await check();
    expect(cluster.calls).toEqual([
      'refusals Greeting',
      'install greetings.greetings.example.com',
      'run',
      'samples',
      'trees',
    ]);
    expect(readdirSync(join(dir, 'crds'))).toEqual(['greetings.example.com_greetings.yaml']);
    expect(text().replace(/\d+\.\d s/g, 'N s')).toBe(
      [
        'gen: wrote crds/greetings.example.com_greetings.yaml',
        'crd: installed greetings.greetings.example.com',
        '✓ build 1 running (N s after the change; controller ready in N s)',
        'samples: greeting/hello serverside-applied',
        'live:',
        '  Greeting default/hello  Ready=True',
        '',
      ].join('\n'),
    );
  });

  it('a type error: shown, and the running build keeps running', async () => {
    const { cluster, check, text, build } = setUp();
    await check();
    build.source = 'v2';
    await check(['src/greeting.ts:3:7 - error TS2322: nope']);
    expect(cluster.calls).toEqual([]);
    expect(text()).toBe('✗ 1 error(s); build 1 keeps running:\n  src/greeting.ts:3:7 - error TS2322: nope\n');
  });

  it('a module that does not load: its error beside the type errors, nothing runs', async () => {
    const { cluster, check, text, build } = setUp();
    build.failure = '--kinds src/kinds.ts: boom';
    await check(['src/a.ts:1:1 - error TS1005: oops']);
    expect(cluster.calls).toEqual([]);
    expect(text()).toBe(
      '✗ 2 error(s); nothing runs yet:\n  src/a.ts:1:1 - error TS1005: oops\n  --kinds src/kinds.ts: boom\n',
    );
  });

  it('a save that changes nothing the kinds run: nothing restarts', async () => {
    const { cluster, check, text } = setUp();
    await check();
    await check();
    expect(cluster.calls).toEqual([]);
    expect(text()).toBe('✓ no errors; build 1 is what the sources say\n');
  });

  it('a changed build: what it changes, then it runs; samples stay as they are when no CRD changed', async () => {
    const { cluster, check, text, build } = setUp();
    await check();
    build.source = 'v2';
    await check();
    expect(cluster.calls).toEqual(['changes', 'run', 'trees']);
    expect(text()).toContain(
      'changes:\n  Greeting default/hello\n    ~ ConfigMap hello-greeting (update)\n✓ build 2 running',
    );
  });

  it('a controller that exited is started again at the next good check, changed or not', async () => {
    const { cluster, check } = setUp();
    await check();
    cluster.runningNow = false;
    await check();
    expect(cluster.calls).toEqual(['changes', 'run', 'trees']);
  });

  it('new types are written, and checked before the build runs', async () => {
    const { cluster, check, text, build } = setUp();
    build.types = [[join(dir, 'src/greeting/types.generated.ts'), 'export interface GreetingSpec {}\n']];
    await check();
    expect(cluster.calls).toEqual([]);
    expect(text()).toBe(
      'gen: wrote crds/greetings.example.com_greetings.yaml, src/greeting/types.generated.ts\n',
    );
    expect(existsSync(join(dir, 'src/greeting/types.generated.ts'))).toBe(true);
    await check(); // the check that the new types brought
    expect(cluster.calls).toContain('run');
  });

  it('a CRD the live objects do not fit: why, and it waits; a sample saved that fits: installed and run', async () => {
    const { cluster, check, text, build, loop, said } = setUp();
    await check();
    build.kinds = [withTeam];
    build.source = 'v2';
    cluster.refused = ['Greeting default/hello: spec.team: Unsupported value: "payments"'];
    await check();
    expect(cluster.calls).toEqual(['refusals Greeting']);
    expect(text()).toContain(
      '✗ the CRD of Greeting cannot be installed: build 1 keeps running; change the schema, or the objects:\n' +
        '  Greeting default/hello: spec.team: Unsupported value: "payments"\n',
    );
    cluster.refused = [];
    cluster.calls.length = 0;
    said.length = 0;
    loop.samplesSaved();
    await loop.idle();
    expect(cluster.calls.filter((c) => c !== 'trees')).toEqual([
      'samples',
      'refusals Greeting',
      'install greetings.greetings.example.com',
      'changes',
      'run',
      'samples',
    ]);
    expect(text()).toContain('✓ build 2 running');
  });
});
