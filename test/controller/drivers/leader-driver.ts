/**
 * Runs a LeaderElector against the cluster of KUBECONFIG and prints, one JSON object per line:
 * {t:'started'} when it leads, {t:'stopped'} when it loses the lease, {t:'released'} after
 * `release` on stdin (then it exits 0), {t:'ended'} when run() resolved. Config: DRIVER_CONFIG.
 */
import { createInterface } from 'node:readline';
import { loadClient } from '../../../controller/kube/client';
import { LeaderElector } from '../../../controller/runtime/leader';
import { createLogger } from '../../../controller/log';

/** The elector's own options, as the test passes them. */
type Config = ConstructorParameters<typeof LeaderElector>[1];

const config = JSON.parse(process.env.DRIVER_CONFIG ?? '{}') as Config;
const print = (line: Record<string, unknown>) => process.stdout.write(JSON.stringify(line) + '\n');
const log = createLogger({ level: 'debug', format: 'json' }).child({ identity: config.identity });

const elector = new LeaderElector(loadClient({ userAgent: 'leader-driver' }), config, log);
let leadership: AbortSignal | undefined;
void elector
  .run({
    onStartedLeading: (signal) => {
      leadership = signal;
      print({ t: 'started', leader: elector.isLeader() });
    },
    onStoppedLeading: () => print({ t: 'stopped', aborted: leadership?.aborted, leader: elector.isLeader() }),
  })
  .then(() => print({ t: 'ended' }));

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'release') {
    void elector.release().then(() => {
      print({ t: 'released', aborted: leadership?.aborted ?? null, leader: elector.isLeader() });
      process.exit(0);
    });
  }
});
