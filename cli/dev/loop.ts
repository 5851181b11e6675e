/**
 * The dev loop's builds: what happens after each type check of the project (./typecheck.ts) and each save
 * of a sample. One at a time, in order; a build that finds nothing new does nothing.
 *
 *   1. the kinds, loaded again from the sources (./reload.ts)
 *   2. `reconstruct gen`: the CRD YAML and types brought up to date; new types are checked again first
 *   3. type errors: shown, and the running build keeps running
 *   4. a CRD that changed: installed when every live object fits it (./crds.ts), else why not, and wait
 *   5. what the build changes in each resource's children (./view.ts), then the build runs (./controller.ts)
 *   6. the samples applied (at start, after a CRD changed, on their own save), and the live tree
 */
import { relative } from 'node:path';
import { KindsError } from '../../constructs/kind-modules';
import type { Kind, KindRegistry } from '../../constructs/kit';
import { sleep } from '../../controller/abortable';
import { writeArtifacts } from '../gen';
import { changedCrds } from './crds';
import type { DevBuild, DevCluster } from './ports';
import type { CheckResult } from './typecheck';

export interface DevLoopOptions {
  /** The project's folder: paths are said relative to it. */
  readonly projectDir: string;
  readonly build: DevBuild;
  readonly cluster: DevCluster;
  readonly out: (text: string) => void;
  /** How long the live tree is followed after a build or a sample's save, at most. */
  readonly followMs?: number;
}

const FOLLOW_MS = 60_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export class DevLoop {
  private queue: Promise<void> = Promise.resolve();
  private build = 0;
  /** The fingerprint of the project modules the running build was loaded from. */
  private running: string | undefined;
  /** Each CRD as installed last, by name. */
  private readonly installed = new Map<string, string>();
  private samplesApplied = false;
  /** The check of a build whose CRD the live objects did not fit: tried again when a sample is saved. */
  private waiting: { result: CheckResult; startedAt: number } | undefined;
  private follow = new AbortController();
  /** The kinds of the running build, for the live tree. */
  private lastKinds: KindRegistry | undefined;

  constructor(private readonly options: DevLoopOptions) {}

  /** A type check finished (`startedAt`: when it saw the change). */
  checked(result: CheckResult, startedAt: number): void {
    this.enqueue(() => this.onCheck(result, startedAt));
  }

  /** A file under samples/ was saved: applied, and a build that waited for the objects to fit, tried again. */
  samplesSaved(): void {
    this.enqueue(async () => {
      await this.apply();
      const waiting = this.waiting;
      if (waiting) await this.onCheck(waiting.result, waiting.startedAt);
    });
  }

  private enqueue(task: () => Promise<void>): void {
    this.follow.abort(); // the live tree of the last build gives way to the next
    this.queue = this.queue.then(task).catch((err: unknown) => {
      this.options.out(`✗ ${err instanceof Error ? err.message : String(err)}\n`);
    });
  }

  /** Resolves once every build queued so far is done. */
  idle(): Promise<void> {
    return this.queue;
  }

  private async onCheck(result: CheckResult, startedAt: number): Promise<void> {
    const { out, projectDir, build, cluster } = this.options;
    this.waiting = undefined;
    let kinds: KindRegistry;
    try {
      kinds = await build.load();
    } catch (err) {
      if (!(err instanceof KindsError)) throw err;
      out(this.refused([...result.errors, err.message]));
      return;
    }
    const plan = await build.plan(kinds.kinds);
    if (plan.drifted.length + plan.stale.length > 0) {
      writeArtifacts(plan);
      const paths = [...plan.drifted.map(([p]) => p), ...plan.stale].map((p) => relative(projectDir, p));
      out(`gen: wrote ${paths.join(', ')}\n`);
      // New types are checked first: the check that follows brings the build here again.
      if (plan.drifted.some(([p]) => p.endsWith('.ts'))) return;
    }
    if (result.errors.length > 0) {
      out(this.refused(result.errors));
      return;
    }
    const fingerprint = build.fingerprint();
    const changed = changedCrds(kinds.kinds, this.installed);
    if (fingerprint === this.running && changed.length === 0 && cluster.controller.running) {
      out(`✓ no errors; build ${this.build} is what the sources say\n`);
      return;
    }
    if (!(await this.installCrds(changed))) {
      this.waiting = { result, startedAt };
      return;
    }
    if (this.running !== undefined) out(`changes:\n${await cluster.changes(kinds.kinds)}`);
    const { readyMs } = await cluster.controller.run();
    this.running = fingerprint;
    this.build++;
    out(
      `✓ build ${this.build} running (${seconds(Date.now() - startedAt)} after the change; controller ready in ${seconds(readyMs)})\n`,
    );
    if (!this.samplesApplied || changed.length > 0) await this.apply(kinds);
    else void this.followTree(kinds);
  }

  /** What runs while a new build is held back. */
  private keeps(): string {
    return this.running === undefined ? 'nothing runs yet' : `build ${this.build} keeps running`;
  }

  /** The lines that say the new build is refused and the running one (if any) keeps running. */
  private refused(problems: readonly string[]): string {
    return `✗ ${problems.length} error(s); ${this.keeps()}:\n${problems.map((p) => `  ${p}\n`).join('')}`;
  }

  /** Installs the changed CRDs when the cluster can take every one of them; false when it cannot. */
  private async installCrds(changed: readonly Kind[]): Promise<boolean> {
    const { cluster, out } = this.options;
    for (const definition of changed) {
      const refusals = await cluster.refusals(definition);
      if (refusals.length === 0) continue;
      out(
        `✗ the CRD of ${definition.kind} cannot be installed: ${this.keeps()}; ` +
          `change the schema, or the objects:\n${refusals.map((r) => `  ${r}\n`).join('')}`,
      );
      return false;
    }
    for (const definition of changed) {
      await cluster.install(definition);
      this.installed.set(definition.crd.metadata.name, JSON.stringify(definition.crd));
      out(`crd: installed ${definition.crd.metadata.name}\n`);
    }
    return true;
  }

  /** Applies the samples, then follows the live tree. */
  private async apply(kinds = this.lastKinds): Promise<void> {
    const { cluster, out } = this.options;
    if (kinds) this.lastKinds = kinds;
    const applied = await cluster.applySamples();
    if (applied) out(`${applied.ok ? 'samples' : '✗ samples'}: ${applied.output.replace(/\n/g, '\n  ')}\n`);
    this.samplesApplied = true;
    if (this.lastKinds) void this.followTree(this.lastKinds);
  }

  /** Prints the live tree each time it changes, until every resource is Ready or the next build starts. */
  private async followTree(kinds: KindRegistry): Promise<void> {
    this.lastKinds = kinds;
    this.follow = new AbortController();
    const { signal } = this.follow;
    const until = Date.now() + (this.options.followMs ?? FOLLOW_MS);
    let shown = '';
    while (!signal.aborted && Date.now() < until) {
      let trees;
      try {
        trees = await this.options.cluster.trees(kinds.kinds);
      } catch (err) {
        this.options.out(`✗ live tree: ${err instanceof Error ? err.message : String(err)}\n`);
        return;
      }
      const { text, ready } = trees;
      if (signal.aborted) return;
      if (text !== shown) this.options.out(`live:\n${text.replace(/^/gm, '  ')}\n`);
      shown = text;
      if (ready) return;
      await sleep(500, signal);
    }
  }
}
