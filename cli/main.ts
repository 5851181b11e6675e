#!/usr/bin/env node
import { synthCommand } from '../synth/command';
import { installCommand } from '../synth/install-command';
import { version } from '../package.json';

const HELP = `Usage: reconstruct COMMAND [options]

Kubernetes operators written as cdk8s constructs.

Commands:
  synth PATH...   render custom-resource YAML to plain Kubernetes manifests, offline
  controller      run the operator against a cluster
  install         render the manifests that install the operator into a cluster
  help            show this help

Run 'reconstruct COMMAND --help' for a command's options.
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'synth':
      return synthCommand(rest);
    case 'install':
      return installCommand(rest, version);
    case 'version':
    case '--version':
      process.stdout.write(`${version}\n`);
      return 0;
    case 'controller': {
      // Loaded on demand: only the controller needs the Kubernetes client.
      const { controllerCommand } = await import('../controller/main');
      return controllerCommand(rest);
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
