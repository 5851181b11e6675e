/** The settings of bench:peer (reconstruct against the Go peer and kro): its flags, defaults and help. */
import { parseArgs } from 'node:util';
import { type Settings, int } from './settings';

export const PEER_HELP = `Usage: node dist/bench/controller/peer.js [options]   (npm run bench:peer -- [options])

  --counts N,N       Memcached resources per run, one table each (default 500,2000)
  --peers go,kro     the peers reconstruct runs against (default go,kro): go, the controller-runtime
                     memcached-operator of bench/peer-go; kro, kro's controller with the
                     ResourceGraphDefinition of bench/peer-kro (both built with Go, cached);
                     http1, reconstruct itself over HTTP/1.1 (DISABLE_HTTP2), in every round
  --pairs N          rounds per count, each a run of reconstruct and of each peer, their order
                     rotated between rounds (default 3 up to 500, 1 above)
  --workers N        reconstruct's workers (default 4, its default); each peer runs with its
                     defaults (1 worker) in the rounds, then once with this many (kro also with a
                     client QPS of 1,000, burst 2,000, so that its rate limiter never waits)
  --tuned-only       each peer runs once, tuned, not with its defaults: for counts where a peer's
                     defaults would take hours (kro at 10,000: about 28 requests per resource at
                     its client QPS of 100)
  --overhead-only    stop each run once the children are applied: no wait for Ready, no single
                     updates, no idle windows (at 10,000 kube-controller-manager, at its client QPS
                     of 20, takes hours to make every Deployment Ready)
  --size N           spec.size of each Memcached (default 1); 0: Deployments without pods, for counts
                     the machine's kwok nodes would take long to start pods for (10,000)
  --updates N        single updates timed per run (default 20)
  --idle SECONDS     each of the two idle windows once all converged (default 60)
  --deadline MIN     stop (and clean up) after this many minutes whatever happens (default 120)
  --json FILE        also write every run's figures as JSON
  --no-warmup        skip the unmeasured pass that warms up the API server and etcd first
  --same-work        run reconstruct with the peer's work: a Memcached kind that makes the Deployment
                     alone (no Service, no pods watched; bench/controller/peer-work-kind.ts)
  -h, --help
`;

/** The peers bench:peer can run against. */
export const PEER_NAMES = ['go', 'kro', 'http1'] as const;
const DEFAULT_PEERS = 'go,kro';
export type PeerName = (typeof PEER_NAMES)[number];

export interface PeerSettings {
  counts: number[];
  peers: PeerName[];
  /** Pairs for a count: the flag, else 3 up to 500 and 1 above. */
  pairs: (count: number) => number;
  workers: number;
  size: number;
  /** Peers run tuned only, not with their defaults. */
  tunedOnly: boolean;
  /** Each run stops once the children are applied. */
  overheadOnly: boolean;
  updates: number;
  idleSeconds: number;
  deadlineMs: number;
  json?: string;
  warmup: boolean;
  /** reconstruct runs with peer-work-kind.ts instead of its built-in Memcached. */
  sameWork: boolean;
}

/** The settings from the command line (`args`); undefined after --help. Throws on a bad value. */
export function peerSettings(args = process.argv.slice(2)): PeerSettings | undefined {
  const { values } = parseArgs({
    args,
    options: {
      counts: { type: 'string' },
      peers: { type: 'string' },
      pairs: { type: 'string' },
      workers: { type: 'string' },
      size: { type: 'string' },
      'tuned-only': { type: 'boolean' },
      'overhead-only': { type: 'boolean' },
      updates: { type: 'string' },
      idle: { type: 'string' },
      deadline: { type: 'string' },
      json: { type: 'string' },
      'no-warmup': { type: 'boolean' },
      'same-work': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(PEER_HELP);
    return undefined;
  }
  const pairs = values.pairs === undefined ? undefined : int('pairs', values.pairs, 1, 1);
  const peers = (values.peers ?? DEFAULT_PEERS).split(',').map((x) => x.trim());
  for (const peer of peers) {
    if (!(PEER_NAMES as readonly string[]).includes(peer))
      throw new Error(`--peers: '${peer}' is not a peer (they are: ${PEER_NAMES.join(', ')})`);
  }
  return {
    counts: (values.counts ?? '500,2000').split(',').map((c) => int('counts', c.trim(), 0, 1)),
    peers: [...new Set(peers as PeerName[])],
    pairs: (count) => pairs ?? (count <= 500 ? 3 : 1),
    workers: int('workers', values.workers, 4, 1),
    size: int('size', values.size, 1, 0),
    tunedOnly: values['tuned-only'] ?? false,
    overheadOnly: values['overhead-only'] ?? false,
    updates: int('updates', values.updates, 20, 0),
    idleSeconds: int('idle', values.idle, 60, 1),
    deadlineMs: int('deadline', values.deadline, 120, 1) * 60_000,
    json: values.json,
    warmup: !values['no-warmup'],
    sameWork: values['same-work'] ?? false,
  };
}

/** The phases' settings for one run: N Memcached (of size 1), 32 creates in flight, the controller's own resync. */
export function runSettings(p: PeerSettings, count: number, workers: number, namespace: string): Settings {
  return {
    count,
    workers,
    concurrency: 32,
    size: p.size,
    resyncSeconds: 600,
    updates: p.updates,
    namespace,
    deadlineMs: p.deadlineMs,
    addNodes: true,
    overheadOnly: p.overheadOnly,
    warmup: false,
    baseline: false,
    rounds: 1,
    ownResync: true,
    idleSeconds: p.idleSeconds,
  };
}
