/**
 * A TCP proxy between the controller and the API server that fails the way networks fail: connections that
 * go dead without a word (a middlebox dropping them: bytes vanish, nothing is closed), a partition (new
 * connections too), and a reset. TLS passes through untouched: the controller's kubeconfig points at the
 * proxy (the API server's certificate names 127.0.0.1, whatever the port).
 */
import { spawn } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl } from '../support/kubectl';

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Bytes are dropped both ways; the sockets stay open. */
  dead: boolean;
}

export class FaultProxy {
  private readonly server: Server;
  private readonly links = new Set<Link>();
  private partitioned = false;
  /** Connections accepted so far. */
  accepted = 0;

  /** Connections open now. */
  get open(): number {
    return this.links.size;
  }

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.accept(client));
  }

  listen(): Promise<number> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  }

  /** Every open connection goes dead silently; new ones work. */
  killSilently(): void {
    for (const link of this.links) link.dead = true;
  }

  /** Every connection, open or new, goes dead silently until heal(). */
  partition(): void {
    this.partitioned = true;
    this.killSilently();
  }

  /** New connections work again (the dead ones stay dead, as they would). */
  heal(): void {
    this.partitioned = false;
  }

  async close(): Promise<void> {
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted++;
    const upstream = connect(this.target.port, this.target.host);
    const link: Link = { client, upstream, dead: this.partitioned };
    this.links.add(link);
    client.on('data', (chunk) => {
      if (!link.dead) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!link.dead) client.write(chunk);
    });
    const end = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    // A dead link ignores closes too: the other side never learns.
    client.on('close', () => (link.dead ? undefined : end()));
    upstream.on('close', () => (link.dead ? undefined : end()));
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }
}

/** The test cluster's API server address, from the admin kubeconfig. */
export function apiServer(): { host: string; port: number; url: URL } {
  const server = kubectl([
    'config',
    'view',
    '--minify',
    '-o',
    'jsonpath={.clusters[0].cluster.server}',
  ]).stdout.trim();
  const url = new URL(server);
  return { host: url.hostname, port: Number(url.port || 443), url };
}

/** A copy of the kubeconfig `base` (default: KUBECONFIG's) whose server is the proxy; returns its path. */
export function kubeconfigThrough(port: number, base?: string): string {
  const admin = kubectl([
    'config',
    'view',
    '--raw',
    '--minify',
    '-o',
    'json',
    ...(base ? ['--kubeconfig', base] : []),
  ]).stdout;
  const config = JSON.parse(admin) as { clusters: { cluster: { server: string } }[] };
  const url = new URL(config.clusters[0].cluster.server);
  url.port = String(port);
  config.clusters[0].cluster.server = url.toString().replace(/\/$/, '');
  const path = join(mkdtempSync(join(tmpdir(), 'reconstruct-proxy-')), 'kubeconfig');
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

/** A fault proxy in a process of its own: its faults, each done once the promise resolves. */
export interface RunningProxy {
  readonly port: number;
  partition(): Promise<void>;
  heal(): Promise<void>;
  killSilently(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a FaultProxy to `target` in a child process: a test's synchronous kubectl calls block its own
 * event loop, and a proxy there holds up every request through it meanwhile (a controller's Lease renewal,
 * with a renew deadline of seconds, among them).
 */
export async function startProxy(target: { host: string; port: number }): Promise<RunningProxy> {
  const child = spawn(
    process.execPath,
    [require.resolve('tsx/cli'), __filename, target.host, String(target.port)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  const next = () =>
    Promise.race([
      new Promise<string>((resolve) => waiting.push(resolve)),
      exited.then(() => {
        throw new Error('the fault proxy exited');
      }),
    ]);
  const port = Number((await next()).split(' ')[1]);
  const send = async (command: string) => {
    const done = next();
    child.stdin.write(`${command}\n`);
    await done;
  };
  return {
    port,
    partition: () => send('partition'),
    heal: () => send('heal'),
    killSilently: () => send('kill'),
    close: async () => {
      child.kill();
      await exited;
    },
  };
}

if (require.main === module) {
  const proxy = new FaultProxy({ host: process.argv[2], port: Number(process.argv[3]) });
  void proxy.listen().then((port) => process.stdout.write(`listening ${port}\n`));
  createInterface({ input: process.stdin }).on('line', (command) => {
    if (command === 'partition') proxy.partition();
    else if (command === 'heal') proxy.heal();
    else if (command === 'kill') proxy.killSilently();
    process.stdout.write(`done ${command}\n`);
  });
}
