#!/usr/bin/env node
/**
 * A controller waiting in the wings for the dev loop (./controller.ts): started before it is needed, it
 * loads what every build shares (the controller, the Kubernetes client, cdk8s, cdk8s-plus-27, tsx) and
 * waits; told to run, it loads the project's kinds as they are then and runs `reconstruct controller` with
 * the arguments given. A save then costs the kinds' own load and the caches' first list, not a cold start.
 */
// First: before anything loads cdk8s.
import '../inline-source-maps';
import { open } from 'node:inspector';
import { createRequire } from 'node:module';
import { capHeapGrowth } from '../heap-growth';
import { controllerCommand } from '../controller';

/** What the dev loop sends when this standby's turn comes. */
export interface RunMessage {
  readonly argv: string[];
  /** Open the inspector on this port of this host (the dev loop's --inspect). */
  readonly inspect?: { readonly host: string; readonly port: number };
}

const load = createRequire(__filename);

/** Loads a dependency of the project now, if it has it: what its kinds will import. */
function warm(name: string): void {
  try {
    load(require.resolve(name, { paths: [process.cwd()] }));
  } catch {
    // Not a dependency of this project: its kinds do not import it.
  }
}

function warmUp(): void {
  warm('cdk8s');
  warm('cdk8s-plus-27');
  warm('tsx/cjs/api'); // registered when the kinds load (constructs/kind-modules.ts)
}

process.once('message', (message: RunMessage) => {
  if (message.inspect) open(message.inspect.port, message.inspect.host);
  capHeapGrowth();
  controllerCommand(message.argv).then(
    // At once: the IPC channel would hold the process open (its output is a pipe, written synchronously).
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
// The dev loop gone (killed, or its terminal closed): no controller is left behind.
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
warmUp();
process.send?.('standing-by');
