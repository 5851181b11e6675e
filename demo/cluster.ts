/**
 * The local control plane for the demo: reused when one is already up in <repo>/.cluster, else brought up
 * with scripts/cluster/up.sh (which builds the binaries on first use and installs the CRDs), and brought
 * down with scripts/cluster/down.sh only if the demo brought it up. Reads go through the pinned kubectl.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exited, run, spawnDetached, type Result } from './process';

export class Kubectl {
  constructor(
    readonly bin: string,
    readonly kubeconfig: string,
  ) {}

  /** `kubectl ARGS...`; never rejects, look at the code. */
  run(args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Result> {
    return run(this.bin, args, { ...options, env: { ...process.env, KUBECONFIG: this.kubeconfig } });
  }

  /** `kubectl ARGS...`, throwing kubectl's own message on a non-zero exit. */
  async check(args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) {
      throw new Error(`kubectl ${args.join(' ')} failed (exit ${result.code}): ${result.stderr.trim()}`);
    }
    return result.stdout;
  }

  /** `kubectl get ARGS... -o json`, parsed. */
  async getJson<T>(args: string[]): Promise<T> {
    return JSON.parse(await this.check(['get', ...args, '-o', 'json'])) as T;
  }
}

export interface Cluster {
  kubectl: Kubectl;
  kubeconfig: string;
  /** Whether the demo started it, and so stops it at the end. */
  broughtUp: boolean;
}

export class ClusterScripts {
  readonly stateDir: string;
  readonly kubeconfig: string;
  private readonly scripts: string;

  constructor(private readonly root: string) {
    this.stateDir = join(root, '.cluster');
    this.kubeconfig = join(this.stateDir, 'kubeconfig');
    this.scripts = join(root, 'scripts', 'cluster');
  }

  /** kubectl of the cluster in .cluster/, if one is there. */
  private kubectl(): Kubectl | undefined {
    const binDirFile = join(this.stateDir, 'bin-dir');
    if (!existsSync(binDirFile) || !existsSync(this.kubeconfig)) return undefined;
    const bin = join(readFileSync(binDirFile, 'utf8').trim(), 'kubectl');
    return existsSync(bin) ? new Kubectl(bin, this.kubeconfig) : undefined;
  }

  private async answering(kubectl: Kubectl): Promise<boolean> {
    return (await kubectl.run(['--request-timeout=5s', 'get', '--raw', '/readyz'])).code === 0;
  }

  /**
   * A cluster with the CRDs installed. A cluster that is already up is reused; its CRDs are applied here
   * (up.sh would also do it, but would turn a test run's throwaway cluster into a kept one).
   */
  async ensure(signal: AbortSignal, say: (line: string) => void): Promise<Cluster> {
    const existing = this.kubectl();
    if (existing && (await this.answering(existing))) {
      say(`reusing the cluster that is already up (KUBECONFIG=${this.kubeconfig})`);
      await this.installCrds(existing);
      return { kubectl: existing, kubeconfig: this.kubeconfig, broughtUp: false };
    }
    say('bringing up a local control plane with scripts/cluster/up.sh');
    let output = '';
    const child = spawnDetached('bash', [join(this.scripts, 'up.sh')], {
      cwd: this.root,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      process.stderr.write(chunk);
    });
    // up.sh tears a half-started cluster down itself when interrupted.
    const forward = () => child.kill(signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
    signal.addEventListener('abort', forward, { once: true });
    const code = await exited(child);
    signal.removeEventListener('abort', forward);
    const kubectl = this.kubectl();
    if (code !== 0 || !kubectl) {
      throw new Error(
        signal.aborted
          ? 'interrupted while bringing the cluster up'
          : `scripts/cluster/up.sh failed (exit ${code})`,
      );
    }
    // Another run started one in the meantime and up.sh reused it: it is theirs to stop.
    const reused = /already up .*reusing it/.test(output);
    return { kubectl, kubeconfig: this.kubeconfig, broughtUp: !reused };
  }

  private async installCrds(kubectl: Kubectl): Promise<void> {
    const crds = join(this.root, 'crds');
    await kubectl.check([
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=reconstruct-cluster',
      '-f',
      crds,
    ]);
    await kubectl.check(['wait', '--for=condition=Established', '--timeout=60s', '-f', crds], {
      timeoutMs: 70_000,
    });
  }

  /**
   * Whether a run of scripts/cluster/with-cluster.sh in this work tree is using the cluster: each holds
   * a shared lock on a file named in lib.sh while it runs.
   */
  async inUseByOthers(): Promise<boolean> {
    const script = 'source "$1" && exec flock -x -n "$CLUSTER_LOCK_BASE.users" true';
    const result = await run('bash', ['-c', script, 'demo', join(this.scripts, 'lib.sh')]);
    return result.code === 1;
  }

  /** scripts/cluster/down.sh, in its own process group so a second Ctrl-C cannot interrupt it. */
  async down(): Promise<number> {
    const child = spawnDetached('bash', [join(this.scripts, 'down.sh')], {
      cwd: this.root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    return exited(child);
  }
}
