/**
 * One address in front of several local servers, as a Service is in front of its pods: each new connection
 * goes to the next upstream in turn, and to the one after when that refuses it (a pod gone from the
 * Service's endpoints). TLS passes through untouched. It counts the connections each upstream took.
 */
import { spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';

export class TcpBalancer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private next = 0;
  /** Connections each upstream took, by port. */
  readonly taken = new Map<number, number>();

  constructor(
    private readonly upstreams: readonly number[],
    private readonly onTaken: (port: number) => void = () => {},
  ) {
    this.server = createServer((client) => this.accept(client, 0));
    for (const port of upstreams) this.taken.set(port, 0);
  }

  listen(): Promise<number> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  }

  private accept(client: Socket, tried: number): void {
    this.sockets.add(client);
    client.once('close', () => this.sockets.delete(client));
    if (tried >= this.upstreams.length) {
      client.destroy();
      return;
    }
    client.pause();
    const port = this.upstreams[this.next++ % this.upstreams.length];
    const upstream = connect(port, '127.0.0.1');
    upstream.once('error', () => {
      // Refused before anything was sent: the next upstream takes the connection.
      if (!upstream.bytesRead && !upstream.bytesWritten) this.accept(client, tried + 1);
      else client.destroy();
    });
    upstream.once('connect', () => {
      this.taken.set(port, (this.taken.get(port) ?? 0) + 1);
      this.onTaken(port);
      this.sockets.add(upstream);
      upstream.once('close', () => {
        this.sockets.delete(upstream);
        client.destroy();
      });
      client.once('close', () => upstream.destroy());
      client.on('error', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A balancer in a process of its own, as the tests run it. */
export interface RunningBalancer {
  /** The port it listens on. */
  readonly port: number;
  /** Connections each upstream took so far, by port. */
  readonly taken: Map<number, number>;
  close(): Promise<void>;
}

/**
 * Starts a balancer in front of `upstreams` in a child process: a test's synchronous kubectl calls block
 * its own event loop, and a balancer there would hold up the API server's calls through it meanwhile.
 */
export async function startBalancer(upstreams: readonly number[]): Promise<RunningBalancer> {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), __filename, ...upstreams.map(String)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const taken = new Map(upstreams.map((p) => [p, 0]));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [word, value] = line.split(' ');
      if (word === 'listening') resolve(Number(value));
      if (word === 'took') taken.set(Number(value), (taken.get(Number(value)) ?? 0) + 1);
    });
    void exited.then(() => reject(new Error('the balancer exited before it listened')));
  });
  return {
    port,
    taken,
    close: async () => {
      child.kill();
      await exited;
    },
  };
}

if (require.main === module) {
  const balancer = new TcpBalancer(process.argv.slice(2).map(Number), (port) =>
    process.stdout.write(`took ${port}\n`),
  );
  void balancer.listen().then((port) => process.stdout.write(`listening ${port}\n`));
}
