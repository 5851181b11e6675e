/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does
 * it: candidates try every retryPeriod to take a lease whose holder has not renewed it for
 * leaseDuration (measured on the candidate's own clock, from when it last saw the lease change, so
 * clock skew between nodes does not matter); the leader renews every retryPeriod and steps down if
 * it could not renew for renewDeadline, which is shorter than leaseDuration, so that it stops
 * before anyone else can start. Writes carry the resourceVersion read, so two candidates can never
 * both win.
 */
import type { KubeClient } from '../kube/client';
import { isConflict, isNotFound, isAlreadyExists } from '../kube/errors';
import { LEASE } from '../../constructs/kit/api-kind';
import { resourcePath } from '../kube/paths';
import { nullLogger, type Logger } from '../log';
import { sleep } from '../abortable';

interface LeaderElectorOptions {
  namespace: string;
  name: string;
  /** Unique per process (e.g. hostname plus a random suffix). */
  identity: string;
  /** How long a lease is valid after its last renewal. Default: 15 000 ms. */
  leaseDurationMs?: number;
  /** The leader steps down when it could not renew for this long. Default: 10 000 ms (2/3 of shorter leases). */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. Default: 2 000 ms (2/15 of shorter leases). */
  retryPeriodMs?: number;
  /** Labels of the Lease when this elector creates it (a shard member's names its ring). */
  labels?: Record<string, string>;
  /**
   * Others write the Lease's labels or annotations while it is held (a ring member's: the ring's leader
   * labels its state, the member acknowledges generations of the ring). The holder then renews with a JSON
   * patch that holds only while it is the holder, in one request: an update with the resourceVersion last
   * seen would conflict with their writes, and the read and second write after the conflict took seconds
   * each on a loaded API server, past the renew deadline. Needs `patch` on leases.
   */
  sharedMetadata?: boolean;
}

export interface LeaderCallbacks {
  /** Called once the lease is acquired; the signal aborts when leadership ends (lost or released). */
  onStartedLeading(signal: AbortSignal): void;
  /**
   * Called when leadership is lost: renewal failed for renewDeadline, or another holder took the
   * lease. Not called after release(), which is a deliberate hand-over.
   */
  onStoppedLeading(): void;
}

/** A coordination.k8s.io/v1 Lease, as much of it as we use. */
interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
    [k: string]: unknown;
  };
}

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly log: Logger;
  private leading = false;
  private stop?: AbortController;
  private running?: Promise<void>;
  /** The lease as last read or written, and when (our clock) we last saw it change. */
  private observed?: Lease;
  private observedAt = 0;
  /** The holder last logged, to log changes of leader once. */
  private lastHolder?: string;

  constructor(
    private readonly client: KubeClient,
    private readonly options: LeaderElectorOptions,
    log?: Logger,
  ) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    // Defaults keep client-go's ratios (15 s, 10 s, 2 s) for shorter leases too.
    this.renewDeadlineMs = options.renewDeadlineMs ?? Math.min(10_000, (this.leaseDurationMs * 2) / 3);
    this.retryPeriodMs = options.retryPeriodMs ?? Math.min(2_000, (this.leaseDurationMs * 2) / 15);
    if (!options.identity) throw new Error('leader election: identity must not be empty');
    if (this.leaseDurationMs <= this.renewDeadlineMs) {
      throw new Error(
        `leader election: leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`,
      );
    }
    if (this.renewDeadlineMs <= this.retryPeriodMs * 1.2) {
      throw new Error(
        `leader election: renewDeadlineMs (${this.renewDeadlineMs}) must be greater than 1.2 x retryPeriodMs (${this.retryPeriodMs})`,
      );
    }
    this.log = (log ?? nullLogger).child({ lease: `${options.namespace}/${options.name}` });
  }

  isLeader(): boolean {
    return this.leading;
  }

  /**
   * Campaigns until the lease is acquired, leads (renewing) until leadership is lost or release()
   * is called, then resolves. Call it once.
   */
  run(callbacks: LeaderCallbacks): Promise<void> {
    if (this.running) throw new Error('leader election: run() was already called');
    const stop = new AbortController();
    this.stop = stop;
    this.running = this.campaign(callbacks, stop.signal);
    return this.running;
  }

  /**
   * Stops campaigning or leading and, if we hold the lease, hands it over at once (as client-go's
   * ReleaseOnCancel): the holder is cleared, so a standby takes it on its next try instead of
   * waiting for the lease to expire.
   */
  async release(): Promise<void> {
    this.stop?.abort();
    await this.running;
    try {
      const lease = await this.get(undefined, this.renewDeadlineMs);
      if (!lease || lease.spec?.holderIdentity !== this.options.identity) return;
      const now = microTime(new Date());
      await this.client.request({
        method: 'PUT',
        path: resourcePath(LEASE, this.options.namespace, this.options.name),
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: null,
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: lease.spec?.leaseTransitions ?? 0,
          },
        },
        timeoutMs: this.renewDeadlineMs,
      });
      this.log.info('released the lease', { identity: this.options.identity });
    } catch (err) {
      // Someone else has it already (conflict), or the API server is away: it expires by itself.
      this.log.warn('could not release the lease', { error: message(err) });
    }
  }

  private async campaign(callbacks: LeaderCallbacks, stop: AbortSignal): Promise<void> {
    this.log.info('waiting to acquire the lease', { identity: this.options.identity });
    while (!stop.aborted) {
      if (await this.attempt(stop, this.renewDeadlineMs)) break;
      // client-go tries every retry period; a standby tries too when the holder's lease expires (on its
      // own clock), so that a failover takes the lease duration, not up to a retry period more.
      const retryMs = this.retryPeriodMs * (1 + Math.random() * 0.2);
      const expiresInMs = this.expiresInMs();
      await sleep(expiresInMs > 0 ? Math.min(retryMs, expiresInMs + 20) : retryMs, stop);
    }
    if (stop.aborted) return;

    this.leading = true;
    const leadership = new AbortController();
    this.log.info('acquired the lease', { identity: this.options.identity });
    try {
      callbacks.onStartedLeading(leadership.signal);
    } catch (err) {
      this.log.error('onStartedLeading failed', { error: message(err) });
    }

    let lastRenew = Date.now();
    let lost = false;
    while (!stop.aborted) {
      await sleep(this.retryPeriodMs, stop);
      if (stop.aborted) break;
      const left = this.renewDeadlineMs - (Date.now() - lastRenew);
      if (await this.attempt(stop, Math.max(left, 1))) {
        lastRenew = Date.now();
        continue;
      }
      if (stop.aborted) break;
      const holder = this.observed?.spec?.holderIdentity;
      if ((holder && holder !== this.options.identity) || Date.now() - lastRenew >= this.renewDeadlineMs) {
        lost = true;
        break;
      }
    }
    this.leading = false;
    leadership.abort();
    if (lost) {
      this.log.error('lost the lease', {
        identity: this.options.identity,
        holder: this.observed?.spec?.holderIdentity ?? undefined,
      });
      try {
        callbacks.onStoppedLeading();
      } catch (err) {
        this.log.error('onStoppedLeading failed', { error: message(err) });
      }
    }
  }

  /** One try to acquire or renew; false when someone else holds a valid lease or a write lost a race. */
  private async attempt(stop: AbortSignal, timeoutMs: number): Promise<boolean> {
    try {
      return await this.tryAcquireOrRenew(stop, timeoutMs);
    } catch (err) {
      if (!stop.aborted) this.log.warn('lease request failed', { error: message(err) });
      return false;
    }
  }

  private async tryAcquireOrRenew(stop: AbortSignal, timeoutMs: number): Promise<boolean> {
    // Each request is bounded by timeoutMs (the client's own deadline), not the attempt as a whole: a
    // deadline shared by the slow path's read and write would let a slow read cut the write short. (The
    // AbortSignal.timeout that was here could be lost to Node 20's garbage collector: in effect, this.)
    const signal = stop;
    const me = this.options.identity;
    const now = new Date();
    const path = resourcePath(LEASE, this.options.namespace, this.options.name);
    const durationSeconds = Math.max(1, Math.round(this.leaseDurationMs / 1000));

    // As leader, write straight from the lease we last wrote: one request per renewal, and a
    // conflict (or a failed test of the holder) means someone else wrote it, which the slow path below
    // sorts out.
    if (this.leading && this.observed?.spec?.holderIdentity === me) {
      try {
        const renewal = this.options.sharedMetadata
          ? {
              method: 'PATCH' as const,
              contentType: 'application/json-patch+json',
              body: [
                { op: 'test', path: '/spec/holderIdentity', value: me },
                { op: 'replace', path: '/spec/renewTime', value: microTime(now) },
              ],
            }
          : {
              method: 'PUT' as const,
              body: { ...this.observed, spec: { ...this.observed.spec, renewTime: microTime(now) } },
            };
        const renewed = await this.client.request<Lease>({ ...renewal, path, signal, timeoutMs });
        this.observe(renewed);
        return true;
      } catch (err) {
        // Someone else wrote it, or it was deleted: read it and decide, as client-go does.
        if (signal.aborted) throw err;
        this.log.debug('optimistic renewal failed; reading the lease', { error: message(err) });
      }
    }

    const lease = await this.get(signal, timeoutMs);
    if (!lease) {
      try {
        const created = await this.client.request<Lease>({
          method: 'POST',
          path: resourcePath(LEASE, this.options.namespace),
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name: this.options.name,
              namespace: this.options.namespace,
              ...(this.options.labels ? { labels: this.options.labels } : {}),
            },
            spec: {
              holderIdentity: me,
              leaseDurationSeconds: durationSeconds,
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: 0,
            },
          },
          signal,
          timeoutMs,
        });
        this.observe(created);
        return true;
      } catch (err) {
        if (isAlreadyExists(err)) return false; // another candidate created it first
        throw err;
      }
    }

    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const validMs = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (holder && holder !== me && this.observedAt + validMs > Date.now()) {
      return false; // held, and renewed within its duration as far as we have seen
    }

    const taking = holder !== me;
    try {
      const written = await this.client.request<Lease>({
        method: 'PUT',
        path,
        body: {
          ...lease,
          spec: {
            ...spec,
            holderIdentity: me,
            leaseDurationSeconds: durationSeconds,
            acquireTime: taking ? microTime(now) : (spec.acquireTime ?? microTime(now)),
            renewTime: microTime(now),
            leaseTransitions: (spec.leaseTransitions ?? 0) + (taking ? 1 : 0),
          },
        },
        signal,
        timeoutMs,
      });
      this.observe(written);
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /** How long until another holder's lease expires, as we saw it renewed; 0 when none holds it. */
  private expiresInMs(): number {
    const spec = this.observed?.spec;
    if (!spec?.holderIdentity || spec.holderIdentity === this.options.identity) return 0;
    return this.observedAt + (spec.leaseDurationSeconds ?? 0) * 1000 - Date.now();
  }

  /** The lease, or undefined when it does not exist; records what we saw. */
  private async get(signal: AbortSignal | undefined, timeoutMs: number): Promise<Lease | undefined> {
    try {
      const lease = await this.client.request<Lease>({
        method: 'GET',
        path: resourcePath(LEASE, this.options.namespace, this.options.name),
        signal,
        timeoutMs,
      });
      this.observe(lease);
      return lease;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private observe(lease: Lease): void {
    if (lease.metadata.resourceVersion !== this.observed?.metadata.resourceVersion) {
      this.observedAt = Date.now();
    }
    this.observed = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.lastHolder) {
      this.lastHolder = holder;
      if (holder !== this.options.identity) this.log.info('lease holder', { holder: holder || undefined });
    }
  }
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, as the API server parses it. */
/** A time as a Lease's MicroTime: microseconds, in UTC. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
