/**
 * The controller of the external-work benchmark: the controller benchmark's (bench/controller/reconstruct.ts,
 * its built-in kinds, as installed) with ZoneRecord's module, and its conversion webhook on a port of its
 * own, its CA Secret in the run's namespace.
 */
import { join } from 'node:path';
import { freePort } from '../../controller/runtime/server';
import type { ControllerUnderTest } from '../controller/controller-under-test';
import { reconstruct } from '../controller/reconstruct';

/** The kinds module, as compiled beside this file. */
export const ZONE_RECORD_KINDS = join(__dirname, 'kinds.js');

export function externalController(namespace: string): ControllerUnderTest {
  return {
    ...reconstruct,
    name: 'reconstruct with ZoneRecord',
    async launch(options) {
      const launch = await reconstruct.launch(options);
      const webhookPort = await freePort();
      return {
        ...launch,
        args: [
          ...launch.args,
          '--kinds',
          ZONE_RECORD_KINDS,
          '--webhook-addr',
          `127.0.0.1:${webhookPort}`,
          '--lease-namespace',
          namespace,
        ],
      };
    },
  };
}
