/**
 * The project's samples, applied to the dev cluster as they are: at start, after a CRD changed, and on every
 * save of a file under samples/. Applied by the cluster's own kubectl, server-side, under the dev loop's
 * field manager; a sample removed from the folder stays in the cluster (delete it with kubectl).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_FIELD_MANAGER } from './crds';

/** The pinned kubectl of the local cluster the project's `.cluster/` describes, else the one on PATH. */
export function clusterKubectl(projectDir: string): string {
  const record = join(projectDir, '.cluster', 'bin-dir');
  if (existsSync(record)) {
    const kubectl = join(readFileSync(record, 'utf8').trim(), 'kubectl');
    if (existsSync(kubectl)) return kubectl;
  }
  return 'kubectl';
}

/** kubectl's output, one line per object (`webapp.example.com/web-app-sample serverside-applied`). */
export interface Applied {
  readonly ok: boolean;
  readonly output: string;
}

/** Applies every YAML file under `dir`; never throws (kubectl's words say what went wrong). */
export function applySamples(kubectl: string, kubeconfig: string, dir: string): Promise<Applied> {
  const args = [
    'apply',
    '--server-side',
    '--force-conflicts',
    `--field-manager=${DEV_FIELD_MANAGER}`,
    '--recursive',
    '-f',
    dir,
  ];
  return new Promise((resolve) => {
    execFile(
      kubectl,
      args,
      { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`.trim();
        resolve({ ok: !err, output: output || (err ? err.message : '') });
      },
    );
  });
}
