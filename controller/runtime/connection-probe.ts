/**
 * Finds dead connections to the API server within seconds: every 10 s, a PING frame on each HTTP/2
 * connection (no request: the API server's handlers never see it), or where the server speaks HTTP/1.1
 * only, one small request. The API server's bookmarks, once a minute per watch, make a silent watch look
 * dead only after 75 s; client-go's pings (30 s idle, then 15 s for the answer) would leave the
 * fault suite's 30 s bound. A middlebox that drops its connections, or a partition, takes them all at
 * once: a PING, or a `GET /version` (open to every authenticated user) on the kept-alive request
 * connection, that gets no answer in 5 s, while no watch delivered anything either, says so for all of
 * them (a slow answer while watches still deliver is a busy server, not a dead connection). The manager then ends every watch as dead and drops the idle pooled connections, so
 * every cache relists on a new connection; and when the probe is answered again, the requests still
 * waiting on dead connections fail (to be retried on new ones) and the caches waiting out a backoff
 * (their relists failed meanwhile) retry at once.
 */
import type { KubeClient } from '../kube/client';
import { ApiError } from '../kube/errors';
import type { Logger } from '../log';

/** What the probe's owner does when the connections die, and when they answer again. */
export interface ConnectionHandlers {
  dead(): void;
  back(): void;
  /** Whether any watch delivered something (an event, a bookmark) at or after this time (Date.now()). */
  heardSince(ms: number): boolean;
}

export interface ConnectionProbeOptions {
  /** Default: 10 000 ms. */
  intervalMs?: number;
  /** How long an answer may take before the connection counts as dead. Default: 5 000 ms. */
  timeoutMs?: number;
}

export class ConnectionProbe {
  private timer?: NodeJS.Timeout;
  /** Whether the last probe failed: a streak of failures is logged once. */
  private down = false;

  constructor(
    private readonly client: Pick<KubeClient, 'request' | 'ping'>,
    private readonly handlers: ConnectionHandlers,
    private readonly log: Logger,
    private readonly options: ConnectionProbeOptions = {},
  ) {}

  start(): void {
    if (!this.timer) this.schedule();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.probe(), this.options.intervalMs ?? 10_000);
  }

  /**
   * One probe: a PING on each HTTP/2 connection, else a `GET /version`. A PING answered, or an answer of
   * any HTTP status, is a live connection; no answer (or a network error) is not.
   */
  async probe(): Promise<void> {
    const sent = Date.now();
    const timeoutMs = this.options.timeoutMs ?? 5000;
    try {
      const pinged = this.client.ping?.(timeoutMs);
      if (!pinged) await this.client.request({ method: 'GET', path: '/version', timeoutMs });
      else if (!(await pinged)) throw new ApiError(0, `no answer to an HTTP/2 PING within ${timeoutMs} ms`);
      this.alive();
    } catch (err) {
      if (err instanceof ApiError && err.status > 0) this.alive();
      else if (this.handlers.heardSince(sent)) this.log.debug('probe unanswered while watches deliver', {});
      else this.dead(err);
    } finally {
      if (this.timer) this.schedule();
    }
  }

  private alive(): void {
    if (!this.down) return;
    this.down = false;
    this.log.info('API server connection answers again');
    this.handlers.back();
  }

  private dead(err: unknown): void {
    if (!this.down) {
      this.log.warn('API server connection dead (no answer to a probe); watching again on a new one', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    this.down = true;
    this.handlers.dead();
  }
}
