/**
 * `reconstruct dev`: the author's loop in a project `reconstruct init` made. Brings up (or reuses) the
 * project's local control plane, runs the controller on the project's kinds, applies the samples, and on
 * every save type-checks, regenerates, installs a changed CRD when it fits, and runs the new build
 * (./loop.ts). Ctrl-C stops the controller and leaves the cluster up for the next run.
 */
import { existsSync, mkdirSync, watch } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadClient } from '../../controller/kube/client';
import { clusterCommand } from '../cluster-command';
import { parseCommand } from '../kinds';
import { CRDS_DIR, KINDS_MODULE, TYPES_PATTERN } from '../scaffold/layout';
import { DevController } from './controller';
import { DevLoop } from './loop';
import { liveCluster, projectBuild } from './ports';
import { clusterKubectl } from './samples';
import { projectTypeScript, watchTypes } from './typecheck';

export const DEV_HELP = `Usage: reconstruct dev [--kinds MODULE] [--crds DIR] [--types FILE] [--samples DIR]
                     [--tsconfig FILE] [--inspect[=[HOST:]PORT]] [--down]

The author's loop, in a project \`reconstruct init\` made: brings up the project's local control plane (or
reuses the one that is up: reconstruct cluster up), installs the kinds' CRDs, runs the controller on the
project's kinds, applies samples/, and watches the sources. On every save:

  - the project is type-checked (its own TypeScript and tsconfig.json); an error is shown with its file and
    line, and the running build keeps running
  - the CRD YAML and types are regenerated when the schema changed (reconstruct gen)
  - a changed CRD is installed when every live object fits it, as reconstruct preview checks it; else why
    not is shown, and the loop waits for the next save
  - what the new build changes in each resource's children is shown (a dry run), then the new build runs:
    a controller started ahead takes over (its log: .cluster/dev-controller.log)
  - the live tree of every resource: Ready, and each child

A save under samples/ applies the samples. Ctrl-C stops the controller and leaves the cluster up.

Options:
  --kinds MODULE       the kinds module (default: ${KINDS_MODULE})
  --crds DIR           where gen writes the CRD YAML (default: ${CRDS_DIR})
  --types FILE         where gen writes the types (default: ${TYPES_PATTERN}; "" for none)
  --samples DIR        the resources to apply (default: samples, when it exists)
  --tsconfig FILE      the project's TypeScript settings (default: tsconfig.json)
  --inspect[=[HOST:]PORT]  open the controller's inspector for a debugger (default 127.0.0.1:9229); each
                       new build opens it again on the same port
  --down               at exit, also stop the cluster (reconstruct cluster down)
  -h, --help           show this help
`;

const OPTIONS = {
  crds: { type: 'string' },
  types: { type: 'string' },
  samples: { type: 'string' },
  tsconfig: { type: 'string' },
  inspect: { type: 'string' },
  down: { type: 'boolean' },
} as const;

/** `--inspect` alone is `--inspect=127.0.0.1:9229`, as node takes it. */
function withInspectDefault(argv: string[]): string[] {
  return argv.map((a) => (a === '--inspect' ? '--inspect=127.0.0.1:9229' : a));
}

/** `[HOST:]PORT` of --inspect, or undefined when it is not one. */
export function inspectAddress(text: string): { host: string; port: number } | undefined {
  const match = /^(?:(.+):)?(\d{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? '127.0.0.1', port };
}

const fail = (message: string, code = 2): number => {
  process.stderr.write(`reconstruct dev: ${message}\n`);
  return code;
};

/** `reconstruct dev`: resolves to the exit status once Ctrl-C ended it. */
export async function devCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand('dev', DEV_HELP, withInspectDefault(argv), OPTIONS);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const projectDir = process.cwd();
  const kindsModule = resolve(values.kinds?.[0] ?? KINDS_MODULE);
  if (!existsSync(kindsModule))
    return fail(
      `no ${values.kinds?.[0] ?? KINDS_MODULE} here: run it in a project reconstruct init made, or give --kinds MODULE`,
    );
  const inspect = values.inspect === undefined ? undefined : inspectAddress(values.inspect);
  if (values.inspect !== undefined && !inspect) return fail(`--inspect=${values.inspect}: give [HOST:]PORT`);
  const ts = projectTypeScript(projectDir);
  if (typeof ts === 'string') return fail(ts);
  const tsconfig = resolve(values.tsconfig ?? 'tsconfig.json');
  if (!existsSync(tsconfig))
    return fail(`no ${values.tsconfig ?? 'tsconfig.json'} here: give --tsconfig FILE`);
  const crds = resolve(values.crds ?? CRDS_DIR);
  const samplesDir = resolve(values.samples ?? 'samples');
  const samples = existsSync(samplesDir) ? samplesDir : undefined;
  if (values.samples !== undefined && !samples) return fail(`--samples ${values.samples}: no such folder`);

  const up = await clusterCommand(['up', ...(existsSync(crds) ? ['--crds', crds] : [])]);
  if (up !== 0) return up;
  const kubeconfig = join(projectDir, '.cluster', 'kubeconfig');
  mkdirSync(join(projectDir, '.cluster'), { recursive: true });
  const out = (text: string) => process.stdout.write(text);
  const controller = new DevController({
    projectDir,
    kubeconfig,
    logFile: join(projectDir, '.cluster', 'dev-controller.log'),
    argv: ['--kinds', kindsModule, '--no-builtin-kinds'],
    ...(inspect ? { inspect } : {}),
    onProblem: (line) => out(`controller: ${line}\n`),
  });
  controller.prepare();
  const loop = new DevLoop({
    projectDir,
    build: projectBuild(
      projectDir,
      kindsModule,
      crds,
      values.types === '' ? undefined : resolve(values.types ?? TYPES_PATTERN),
    ),
    cluster: liveCluster({
      client: loadClient({ kubeconfig }),
      kubectl: clusterKubectl(projectDir),
      kubeconfig,
      ...(samples ? { samples } : {}),
      controller,
    }),
    out,
  });
  let startedAt = Date.now();
  out(`watching ${projectDir} (Ctrl-C to stop)\n`);
  const types = watchTypes(ts, tsconfig, projectDir, {
    onStart: () => {
      startedAt = Date.now();
    },
    onResult: (result) => loop.checked(result, startedAt),
  });
  const samplesWatch = samples ? watchDebounced(samples, () => loop.samplesSaved()) : undefined;
  await interrupted();
  out('\nstopping the controller\n');
  types.close();
  samplesWatch?.close();
  await controller.stop();
  if (values.down) return clusterCommand(['down']);
  out('the cluster stays up for the next run (npx reconstruct cluster down stops it)\n');
  return 0;
}

/** Calls `onChange` once a burst of changes under `dir` is over (an editor writes a file in steps). */
function watchDebounced(dir: string, onChange: () => void): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 150);
  });
  return { close: () => (clearTimeout(timer), watcher.close()) };
}

/** Resolves at the first SIGINT or SIGTERM. */
function interrupted(): Promise<void> {
  return new Promise((resolveSignal) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolveSignal();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
