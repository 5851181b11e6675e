import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { CLUSTER_HELP, clusterCommand, findScriptsDir } from '../../cli/cluster-command';
import { NODE_TS } from '../support/node-ts';

// None of these start a cluster: the commands that would are run without Go and without binaries.

const REPO = resolve(__dirname, '../..');
const SOURCE = join(REPO, 'cli', 'cluster-command.ts');

let tmp: string;
beforeEach(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'reconstruct-cluster-cmd-')));
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
  jest.restoreAllMocks();
});

/** Calls clusterCommand in this process, capturing what it writes itself. */
async function callInProcess(argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const status = await clusterCommand(argv);
  jest.restoreAllMocks();
  return { status, stdout, stderr };
}

/** Calls clusterCommand in a child process (the scripts inherit its stdio) from the folder cwd. */
function callInChild(argv: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const runner = join(tmp, 'runner.ts');
  writeFileSync(
    runner,
    `import { clusterCommand } from ${JSON.stringify(SOURCE.replace(/\.ts$/, ''))};\n` +
      `clusterCommand(process.argv.slice(2)).then((status) => { process.exitCode = status; });\n`,
  );
  const result = spawnSync(process.execPath, [...NODE_TS, runner, ...argv], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The environment minus everything that could change where the scripts look. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const name of [
    'RECONSTRUCT_PROJECT_DIR',
    'RECONSTRUCT_CRDS_DIR',
    'RECONSTRUCT_BIN_DIR',
    'KUBECONFIG',
  ]) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/** PATH without any folder holding `go`; a folder that holds bash as well is replaced by links. */
function pathWithoutGo(): string {
  const dirs: string[] = [];
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (!existsSync(join(dir, 'go'))) dirs.push(dir);
    else if (existsSync(join(dir, 'bash'))) {
      const shim = join(tmp, `shim-${dirs.length}`);
      mkdirSync(shim);
      for (const name of readdirSync(dir)) if (name !== 'go') symlinkSync(join(dir, name), join(shim, name));
      dirs.push(shim);
    }
  }
  return dirs.join(delimiter);
}

describe('reconstruct cluster: usage', () => {
  it.each([[['-h']], [['--help']], [['up', '--help']]])('%j prints the help and exits 0', async (argv) => {
    const { status, stdout, stderr } = await callInProcess(argv);
    expect(status).toBe(0);
    expect(stdout).toBe(CLUSTER_HELP);
    expect(stderr).toBe('');
  });

  it('documents every command and option', () => {
    for (const word of [
      'up',
      'down',
      'run -- CMD',
      'kubeconfig',
      'build',
      '--crds DIR',
      '--feature-gates LIST',
      '--runtime-config LIST',
      'RECONSTRUCT_BIN_DIR',
    ]) {
      expect(CLUSTER_HELP).toContain(word);
    }
  });

  it('rejects an unknown command with exit 2 and the usage', async () => {
    const { status, stdout, stderr } = await callInProcess(['start']);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`reconstruct cluster: unknown command "start"\n\n${CLUSTER_HELP}`);
  });

  it.each([
    [[], 'no command given'],
    [['run'], 'run: no command given'],
    [['run', '--'], 'run: no command given'],
    [['up', '--wat'], 'unknown option "--wat"'],
    [['down', '--crds', 'crds'], '--crds goes with "up" and "run" only'],
    [['up', '--crds'], '--crds needs a folder'],
    [['kubeconfig', '--feature-gates', 'A=true'], '--feature-gates goes with "up" and "run" only'],
    [['up', '--runtime-config'], '--runtime-config needs a list ("" for none)'],
    [['up', 'extra'], 'unexpected argument "extra"'],
    [['up', '--', 'x'], '"--" goes with "run" only'],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const { status, stderr } = await callInProcess(argv);
    expect(status).toBe(2);
    expect(stderr.split('\n')[0]).toBe(`reconstruct cluster: ${message}`);
    expect(stderr).toContain(CLUSTER_HELP);
  });

  it('refuses a --crds folder that does not exist, in one line', async () => {
    const { status, stderr } = await callInProcess(['up', '--crds', join(tmp, 'nope')]);
    expect(status).toBe(2);
    expect(stderr).toBe(`reconstruct cluster: --crds ${join(tmp, 'nope')}: not a folder\n`);
  });
});

describe('reconstruct cluster: without bash', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });

  it('says so in one line', async () => {
    process.env.PATH = tmp; // an empty folder
    const { status, stdout, stderr } = await callInProcess(['kubeconfig']);
    expect(status).toBe(127);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'reconstruct cluster: bash is needed to run the local control plane and is not on PATH\n',
    );
  });
});

describe('reconstruct cluster: the scripts folder', () => {
  it('is found from the sources (cli/)', () => {
    expect(findScriptsDir()).toBe(join(REPO, 'scripts', 'cluster'));
    expect(existsSync(join(findScriptsDir()!, 'with-cluster.sh'))).toBe(true);
  });

  it('is found from the compiled layout of an installed package (dist/cli/)', () => {
    const pkg = join(tmp, 'node_modules', 'cdk8s-reconstruct');
    mkdirSync(join(pkg, 'dist', 'cli'), { recursive: true });
    mkdirSync(join(pkg, 'scripts', 'cluster'), { recursive: true });
    writeFileSync(join(pkg, 'scripts', 'cluster', 'up.sh'), '');
    expect(findScriptsDir(join(pkg, 'dist', 'cli'))).toBe(join(pkg, 'scripts', 'cluster'));
  });

  it('is looked for at most three levels up', () => {
    mkdirSync(join(tmp, 'scripts', 'cluster'), { recursive: true });
    writeFileSync(join(tmp, 'scripts', 'cluster', 'up.sh'), '');
    expect(findScriptsDir(join(tmp, 'a', 'b', 'c'))).toBe(join(tmp, 'scripts', 'cluster'));
    expect(findScriptsDir(join(tmp, 'a', 'b', 'c', 'd'))).toBeUndefined();
  });
});

describe('reconstruct cluster: through the scripts', () => {
  jest.setTimeout(60_000);

  it('kubeconfig prints <current folder>/.cluster/kubeconfig: the project dir reaches the script', () => {
    const { status, stdout, stderr } = callInChild(['kubeconfig'], tmp, cleanEnv());
    expect(stdout).toBe(`${tmp}/.cluster/kubeconfig\n`);
    expect(status).toBe(0);
    expect(stderr).toContain(`no cluster is up in ${tmp}`);
    expect(existsSync(join(tmp, '.cluster'))).toBe(false);
  });

  it('kubeconfig keeps a RECONSTRUCT_PROJECT_DIR that is already set', () => {
    const project = join(tmp, 'project');
    mkdirSync(project);
    const { status, stdout } = callInChild(
      ['kubeconfig'],
      tmp,
      cleanEnv({ RECONSTRUCT_PROJECT_DIR: project }),
    );
    expect(status).toBe(0);
    expect(stdout).toBe(`${project}/.cluster/kubeconfig\n`);
  });

  // Without Go and without binaries nothing can be built, so nothing starts.
  it.each([[['build']], [['up']], [['run', '--', 'true']]])(
    '%j without Go and without binaries fails with one clear line',
    (argv) => {
      const cache = join(tmp, 'cache');
      mkdirSync(cache);
      const env = cleanEnv({ PATH: pathWithoutGo(), RECONSTRUCT_CACHE_DIR: cache });
      const { status, stdout, stderr } = callInChild(argv, tmp, env);
      expect(status).not.toBe(0);
      expect(stdout).toBe('');
      const lines = stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/Go 1\.26 or newer is needed to build the local control plane/);
      expect(lines[0]).toContain('RECONSTRUCT_BIN_DIR');
      expect(readdirSync(cache)).toEqual([]);
      expect(existsSync(join(tmp, '.cluster'))).toBe(false);
    },
  );
});
