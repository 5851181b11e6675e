/**
 * What the dev loop (./loop.ts) works with, as two ports: the project's build (its kinds loaded from the
 * sources, and what they were loaded from) and the cluster (the CRD gate, the dry run, the live tree, the
 * samples, the controller). The command wires them to the real project and cluster; the loop's decisions
 * are tested on stand-ins (test/cli/dev/loop.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Kind, KindRegistry } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { renderArtifacts } from '../../synth/artifacts';
import { planFrom, type ArtifactPlan } from '../gen';
import { crdRefusals, installCrd } from './crds';
import type { DevController } from './controller';
import { freshKinds, projectModules } from './reload';
import { applySamples, type Applied } from './samples';
import { liveTrees, previewChanges } from './view';

export interface DevBuild {
  /** The kinds as the sources are now; throws a KindsError saying what is wrong. */
  load(): Promise<KindRegistry>;
  /** What `reconstruct gen` would write for `kinds`: the CRD YAML and types out of date. */
  plan(kinds: readonly Kind[]): Promise<ArtifactPlan>;
  /** What the last load read, by content: equal when a save changed nothing the kinds run. */
  fingerprint(): string;
}

export interface DevCluster {
  /** Why the cluster cannot take a kind's new CRD, one line each; none when it can. */
  refusals(definition: Kind): Promise<string[]>;
  /** Installs a kind's CRD and waits until it is served. */
  install(definition: Kind): Promise<void>;
  /** What `kinds` would change in each live resource's children, as the loop prints it. */
  changes(kinds: readonly Kind[]): Promise<string>;
  /** The live trees of every resource of `kinds`, and whether all are Ready. */
  trees(kinds: readonly Kind[]): Promise<{ text: string; ready: boolean }>;
  /** Applies the samples; undefined when the project has none. */
  applySamples(): Promise<Applied | undefined>;
  /** The controller: runs the build loaded last (a new process), and whether one runs. */
  readonly controller: Pick<DevController, 'run' | 'running'>;
}

/**
 * The build of the project in `projectDir` whose kinds module is `kindsModule`; gen writes CRDs to `crds`
 * and types to `types` (as `reconstruct gen --types` takes it), both absolute.
 */
export function projectBuild(
  projectDir: string,
  kindsModule: string,
  crds: string,
  types: string | undefined,
): DevBuild {
  // What gen renders follows from the CRDs alone: rendered again only when one changed (a save of the
  // construct costs no types rendering), compared with the files on disk every time.
  let rendered: { key: string; files: Promise<Map<string, string>> } | undefined;
  const plan = async (kinds: readonly Kind[]) => {
    const key = JSON.stringify(kinds.map((k) => k.crd));
    if (rendered?.key !== key) {
      const files = renderArtifacts(kinds, { crds, types });
      files.catch(() => (rendered = undefined)); // a failure is not kept: tried again at the next save
      rendered = { key, files };
    }
    return planFrom(await rendered.files, crds);
  };
  return {
    load: () => freshKinds(kindsModule, projectDir),
    plan,
    fingerprint: () => {
      const hash = createHash('sha256');
      for (const path of projectModules(projectDir, Object.keys(require.cache)).sort()) {
        hash.update(path).update('\0').update(readFileSync(path)).update('\0');
      }
      return hash.digest('hex');
    },
  };
}

/** The local cluster, through `client` and its kubectl. */
export function liveCluster(options: {
  client: KubeClient;
  kubectl: string;
  kubeconfig: string;
  samples?: string;
  controller: DevController;
}): DevCluster {
  const { client, kubectl, kubeconfig, samples, controller } = options;
  return {
    refusals: (definition) => crdRefusals(client, definition),
    install: (definition) => installCrd(client, definition),
    changes: (kinds) => previewChanges(client, kinds),
    trees: (kinds) => liveTrees(client, kinds),
    applySamples: async () => (samples ? applySamples(kubectl, kubeconfig, samples) : undefined),
    controller,
  };
}
