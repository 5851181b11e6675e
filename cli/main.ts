#!/usr/bin/env node
// First: before anything loads cdk8s.
import './inline-source-maps';
import { version } from '../package.json';

const HELP = `Usage: reconstruct COMMAND [options]

Kubernetes operators written as cdk8s constructs.

Commands:
  init [DIR]           a new operator project: one kind, its tests, a Dockerfile and CI
  create kind K        add kind K to the project in the current folder
  synth PATH...        render custom-resource YAML to plain Kubernetes manifests, offline
  krm                  the renderer as a KRM function (a ResourceList in and out), for kustomize and kpt
  diff PATH...         what applying resources would change, and what the controller would then change
  preview [KIND...]    what a new build of kinds would do to every live resource of them (--kinds NEW)
  tree KIND/NAME       a resource, its conditions, and each child: ready or why not
  inputs KIND[/NAME]   the observed inputs of live resources, as the file synth --inputs takes
  suspend KIND/NAME    the controller keeps its hands off a resource until it is resumed
  resume KIND/NAME     the controller reconciles a suspended resource again
  reconcile KIND/NAME  reconcile a resource now (--wait for the result)
  migrate KIND...      rewrite stored objects in their CRD's storage version, then drop old storedVersions
  controller           run the operator against a cluster
  install              render the manifests that install the operator into a cluster
  gen                  write the CRD YAML and spec types derived from kind definitions
  dev                  the author's loop: a local cluster, the controller on the project's kinds, a
                       new build on every save
  cluster              a local Kubernetes control plane for tests (up, down, run)
  version              print the version
  help                 show this help

The commands that work with kinds take --kinds MODULE for kinds defined outside the package.
Run 'reconstruct COMMAND --help' for a command's options.
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Each command is loaded on demand, so that a command loads only what it needs (help and version: nothing).
  switch (command) {
    case 'synth': {
      const { synthCommand } = await import('./synth');
      return synthCommand(rest);
    }
    case 'krm': {
      const { krmCommand } = await import('./krm');
      return krmCommand(rest);
    }
    case 'diff': {
      const { diffCommand } = await import('./diff/command');
      return diffCommand(rest);
    }
    case 'preview': {
      const { previewCommand } = await import('./preview/command');
      return previewCommand(rest);
    }
    case 'tree': {
      const { treeCommand } = await import('./tree/command');
      return treeCommand(rest);
    }
    case 'inputs': {
      const { inputsCommand } = await import('./inputs');
      return inputsCommand(rest);
    }
    case 'suspend': {
      const { suspendCommand } = await import('./operate/suspend');
      return suspendCommand(rest);
    }
    case 'resume': {
      const { resumeCommand } = await import('./operate/suspend');
      return resumeCommand(rest);
    }
    case 'reconcile': {
      const { reconcileCommand } = await import('./operate/reconcile');
      return reconcileCommand(rest);
    }
    case 'migrate': {
      const { migrateCommand } = await import('./migrate');
      return migrateCommand(rest);
    }
    case 'install': {
      const { installCommand } = await import('./install');
      return installCommand(rest, version);
    }
    case 'version':
    case '--version':
      process.stdout.write(`${version}\n`);
      return 0;
    case 'controller': {
      const { capHeapGrowth } = await import('./heap-growth');
      capHeapGrowth();
      const { controllerCommand } = await import('./controller');
      return controllerCommand(rest);
    }
    case 'gen': {
      const { genCommand } = await import('./gen');
      return genCommand(rest);
    }
    case 'init': {
      const { initCommand } = await import('./init');
      return initCommand(rest);
    }
    case 'create': {
      const { createCommand } = await import('./init');
      return createCommand(rest);
    }
    case 'dev': {
      const { devCommand } = await import('./dev/command');
      return devCommand(rest);
    }
    case 'cluster': {
      const { clusterCommand } = await import('./cluster-command');
      return clusterCommand(rest);
    }
    case undefined:
    case 'help':
    case '-h':
    case '--help':
      process.stdout.write(HELP);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`reconstruct: unknown command "${command}"\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // exitCode, not exit(): output to a pipe is flushed first. A timer that holds nothing open ends
    // the controller even if a keep-alive socket lingers.
    process.exitCode = code;
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
