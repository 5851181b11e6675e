/**
 * The controller's external work: each resource's handlers run as promises beside the reconciles, never in
 * them. A reconcile asks `step` where the object stands; `step` answers from what the last handler found
 * and starts the handler that is due (observe, apply or delete) without waiting for it; when the handler
 * settles, its resource is queued again and the next reconcile reads the result. So a slow provider holds
 * no worker, no other resource and no request of the API server's (health, conversion).
 *
 * Bounded: at most the kind's `concurrency` handlers at once (and its `ratePerSecond`), one at a time per
 * resource. Level-based: what is remembered is the last observation, whether it is stale (an apply or a
 * delete since, a reconcile now) and the last failure; every step decides from those and the resource as
 * it is (verdict.ts). A failure backs off (at most 5 s the first time, doubling to 2 minutes, with jitter),
 * or waits as long as the handler said; one resource of the kind failing for a reason tries again at least
 * every 5 s meanwhile (the probe), and when a resource's handler succeeds again after failing, the
 * resources of its kind that failed for the same reason look again at once (the provider is back).
 */
import { OBSERVE_INTERVAL_ANNOTATION, type CustomResource, type Kind } from '../../constructs/kit';
import { durationSeconds, type ExternalWork } from '../../constructs/kit/external';
import { objectKey, parseObjectKey } from '../kube/object-key';
import type { Logger } from '../log';
import { failureReadiness, tracedCall, type Failure } from './call';
import { ExternalDrift, leftAsItIs } from './drift';
import type { Tracing } from '../tracing/tracing';
import { Claims } from './claims';
import { Limiter } from './limiter';
import { SECRET_RECHECK_MS, SecretReads } from './secrets';
import type { Writer } from '../kube/writer';
import type { ExternalEvent, ExternalState, ExternalSteps, StepOptions } from './steps';
import { fingerprint, verdict, type ExternalAction, type Observation } from './verdict';

/** The first retry of a failed handler comes within this long; each failure in a row doubles it. */
export const RETRY_FIRST_MS = 5_000;
export const RETRY_MAX_MS = 120_000;
/**
 * While a kind's handlers fail for a reason, one of its resources (the probe) tries again at least this
 * often whatever its backoff, and its success wakes the others: an outage that ends is noticed within
 * this long however long it lasted, for one call of the kind's every 5 s while it lasts.
 */
export const PROBE_MS = 5_000;

/** A backoff's wait after `count` failures in a row: between half and all of 5 s x 2^(count-1), at most 2 minutes. */
export function retryAfterMs(count: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_FIRST_MS * 2 ** (count - 1), RETRY_MAX_MS);
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

interface Entry {
  readonly definition: Kind;
  readonly namespace: string | undefined;
  readonly name: string;
  observation?: Observation;
  /** An apply or delete since the observation, or a reconcile now: observe before deciding anything. */
  stale: boolean;
  /** Read the Secrets again at the next handler (a reconcile now). */
  freshSecrets: boolean;
  running?: ExternalAction;
  failure?: Failure & { count: number; retryAt: number };
  /** What the handlers did since the last step, for the resource's events. */
  news: ExternalEvent[];
  /** Another resource of the kind holds the object this one names (Claims): said once as an event. */
  standingAside?: string;
  readonly drift: ExternalDrift;
}

/** The Ready reason of a resource whose object another resource of its kind holds. */
export const CONFLICT = 'Conflict';

export interface ExternalRunnerOptions {
  /** What the Secrets its handlers need are read with, by name (SecretReads). */
  readonly reader: Pick<Writer, 'read'>;
  /** Queues a resource for a reconcile: its handler settled. */
  readonly enqueue: (definition: Kind, namespace: string | undefined, name: string) => void;
  readonly now?: () => number;
  readonly random?: () => number;
  /** How often the Secrets the handlers read are read again for a change (recheckSecrets). */
  readonly recheckSecretsMs?: number;
  /** A span per handler call, a child of the reconcile that started it (controller/tracing). */
  readonly tracing?: Tracing;
}

export class ExternalRunner implements ExternalSteps {
  private readonly entries = new Map<string, Entry>();
  private readonly limiters = new Map<Kind, Limiter>();
  /** By kind and failure reason: when the probe tries again (PROBE_MS). */
  private readonly probes = new Map<Kind, Map<string, number>>();
  private readonly running = new Set<Promise<void>>();
  private readonly claims = new Claims((keys) => this.wakeKeys(keys));
  private readonly stopping = new AbortController();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly secrets: SecretReads;

  constructor(private readonly options: ExternalRunnerOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.secrets = new SecretReads(options.reader, this.now);
  }

  step(
    definition: Kind,
    resource: CustomResource,
    options: StepOptions,
    log: Logger,
  ): Promise<ExternalState> {
    return Promise.resolve(this.stepNow(definition, resource, options, log));
  }

  /** What `step` says, at once: the handler it starts is not waited for. */
  private stepNow(
    definition: Kind,
    resource: CustomResource,
    { deleting, now: asked, driftMode = 'correct' }: StepOptions,
    log: Logger,
  ): ExternalState {
    const work = definition.external!;
    const key = objectKey(definition, resource.metadata.namespace, resource.metadata.name);
    const { namespace, name } = resource.metadata;
    const entry = this.entries.get(key) ?? {
      definition,
      namespace,
      name,
      stale: false,
      freshSecrets: false,
      news: [],
      drift: new ExternalDrift(),
    };
    this.entries.set(key, entry);
    if (asked) {
      entry.stale = entry.freshSecrets = true;
      if (entry.failure) entry.failure.retryAt = 0;
    }
    const desired = work.desired(resource);
    const aside = this.standAside(key, entry, work, desired, resource, deleting);
    if (aside) return aside;
    const print = fingerprint(desired);
    const observation = entry.observation?.fingerprint === print ? entry.observation : undefined;
    const clock = this.now();
    const intervalMs = observeIntervalMs(definition, resource);
    const due = !observation || entry.stale || clock - observation.at >= intervalMs;
    const said = verdict(work, resource, desired, observation, deleting);
    const observed = entry.observation?.value;
    const { failure } = entry;
    const found = entry.drift.judge(print, said, work.describe(desired)); // none without differences
    const left = driftMode === 'warn' ? found : undefined;
    const judged = left ? leftAsItIs(left) : said.readiness;
    const drifts = entry.drift.reports(driftMode, found);
    // A retained object is gone for its resource whatever its handlers last said: none runs for it again.
    const gone = said.gone && (!failure || work.retain(resource));
    const state = (afterMs?: number): ExternalState => ({
      readiness: failure ? failureReadiness(failure) : judged,
      ...(drifts.length > 0 ? { drifts } : {}),
      ...(observed !== undefined ? { observed } : {}),
      ...(gone ? { gone: true } : {}),
      ...(afterMs !== undefined ? { afterMs: Math.max(afterMs, 0) } : {}),
      ...(entry.news.length > 0 ? { events: entry.news.splice(0) } : {}),
    });
    if (said.gone && (!due || work.retain(resource))) return state();
    if (entry.running) return state(); // Its end queues the resource.
    if (failure && clock < failure.retryAt) return state(failure.retryAt - clock);
    const action = due ? 'observe' : left ? undefined : said.action;
    if (action) {
      entry.drift.applying(action === 'apply' ? found : undefined);
      this.start(key, entry, action, resource, desired, print, log);
      return state();
    }
    return state(observation!.at + intervalMs - clock);
  }

  busy(key: string): boolean {
    return this.entries.get(key)?.running !== undefined;
  }

  observed(key: string): unknown {
    return this.entries.get(key)?.observation?.value;
  }

  forget(key: string): void {
    this.entries.delete(key);
    this.secrets.forget(key);
    this.wakeKeys(this.claims.release(key));
  }

  /**
   * When another resource of the kind holds the object this one names (Claims), what this one says: no
   * handler runs for it, and its deletion leaves the object to the holder. Undefined when it holds it.
   */
  private standAside(
    key: string,
    entry: Entry,
    work: ExternalWork,
    desired: unknown,
    resource: CustomResource,
    deleting: boolean,
  ): ExternalState | undefined {
    const identity = work.identity(desired, resource);
    const created = resource.metadata.creationTimestamp;
    const holder = this.claims.claim(
      entry.definition,
      identity,
      key,
      typeof created === 'string' ? created : undefined,
    );
    if (holder === key) {
      entry.standingAside = undefined;
      return undefined;
    }
    const { kind, namespace, name } = parseObjectKey(holder);
    const message = `${work.describe(desired)} is the work of ${kind} ${namespace ? `${namespace}/` : ''}${name}, older: this one stands aside until it is not`;
    const events: ExternalEvent[] =
      entry.standingAside === holder ? [] : [{ type: 'Warning', reason: CONFLICT, message }];
    entry.standingAside = holder;
    return {
      readiness: { ready: false, reason: CONFLICT, message },
      ...(deleting ? { gone: true } : {}),
      ...(events.length > 0 ? { events } : {}),
    };
  }

  /** Queues the resources of `keys`: what held them back has gone. */
  private wakeKeys(keys: string[]): void {
    for (const k of keys) {
      const entry = this.entries.get(k);
      if (entry) this.options.enqueue(entry.definition, entry.namespace, entry.name);
    }
  }

  /**
   * Reads the Secrets the handlers read again (SecretReads.recheck): the resources that read one that
   * changed observe again with it, now.
   */
  async recheckSecrets(): Promise<void> {
    for (const { definition, resource } of await this.secrets.recheck()) {
      const { namespace, name } = resource.metadata;
      const entry = this.entries.get(objectKey(definition, namespace, name));
      if (!entry) continue;
      entry.stale = true;
      if (entry.failure) entry.failure.retryAt = 0;
      this.options.enqueue(definition, namespace, name);
    }
  }

  /** How many of a kind's handlers run now, and how many wait for a slot (the metrics). */
  counts(definition: Kind): { running: number; waiting: number } {
    return this.limiters.get(definition)?.counts ?? { running: 0, waiting: 0 };
  }

  /**
   * Stops starting handlers, waits for those running up to `graceMs`, then aborts their signals. Resolves
   * when they have stopped (or been abandoned).
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    clearInterval(this.recheck);
    const all = Promise.all(this.running);
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
    if ((await Promise.race([all, timer])) === 'timeout') this.stopping.abort();
    await Promise.race([all, new Promise((r) => setTimeout(r, 1_000).unref())]);
  }

  /** Resolves once no handler runs (for tests and the in-memory cluster). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private stopped = false;
  private recheck?: NodeJS.Timeout;

  private start(
    key: string,
    entry: Entry,
    action: ExternalAction,
    resource: CustomResource,
    desired: unknown,
    print: string,
    log: Logger,
  ): void {
    if (this.stopped) return;
    const { recheckSecretsMs = SECRET_RECHECK_MS } = this.options;
    this.recheck ??= setInterval(() => void this.recheckSecrets(), recheckSecretsMs).unref();
    const { definition } = entry;
    entry.running = action;
    const freshSecrets = entry.freshSecrets;
    entry.freshSecrets = false;
    const what = {
      described: definition.external!.describe(desired),
      existed: entry.observation?.value !== undefined,
    };
    const observed = entry.observation?.value;
    const call = { definition, resource, action, desired, observed, log, freshSecrets };
    const { secrets, stopping, options } = this;
    const handler = tracedCall(options.tracing, call, what.described, secrets, stopping.signal);
    const run = this.limiter(definition).run(async () => {
      const outcome = await handler();
      entry.drift.ended('value' in outcome);
      if ('value' in outcome) this.succeeded(key, entry, action, outcome.value, print, log, what);
      else {
        this.failed(entry, action, outcome.failure, log);
        await outcome.running;
      }
    });
    const tracked = run.finally(() => {
      entry.running = undefined;
      this.running.delete(tracked);
      // A resource forgotten meanwhile (gone) is not queued again.
      if (this.entries.get(key) === entry) this.options.enqueue(definition, entry.namespace, entry.name);
    });
    this.running.add(tracked);
  }

  private succeeded(
    key: string,
    entry: Entry,
    action: ExternalAction,
    value: unknown,
    print: string,
    log: Logger,
    what: { readonly described: string; readonly existed: boolean },
  ): void {
    const before = entry.failure;
    entry.failure = undefined;
    if (action === 'observe') {
      entry.observation = { value, at: this.now(), fingerprint: print };
      entry.stale = false;
    } else {
      entry.stale = true;
      const done = action === 'delete' ? 'Deleted' : what.existed ? 'Updated' : 'Created';
      entry.news.push({ type: 'Normal', reason: done, message: `${done.toLowerCase()} ${what.described}` });
      log.info(`${done.toLowerCase()} external object`, { object: what.described });
    }
    if (before) {
      log.info('external work succeeds again', { after: before.reason });
      this.wake(entry.definition, before.reason, key);
    }
  }

  private failed(entry: Entry, action: ExternalAction, failure: Failure, log: Logger): void {
    const count = (entry.failure?.count ?? 0) + 1;
    const again = entry.failure?.reason === failure.reason && entry.failure.message === failure.message;
    // A failure is an event when it starts, or its reason changes: not at every retry.
    if (entry.failure?.reason !== failure.reason) {
      entry.news.push({ type: 'Warning', reason: failure.reason, message: failure.message });
    }
    const now = this.now();
    const waitMs =
      failure.retryAfterSeconds !== undefined
        ? failure.retryAfterSeconds * 1000
        : this.probeWait(entry.definition, failure.reason, now, retryAfterMs(count, this.random));
    entry.failure = { ...failure, count, retryAt: now + waitMs };
    // What a failed apply or delete left is not known: the retry observes first.
    entry.stale = true;
    // The same failure again is a debug line: a resource failing for an hour says so once at warn.
    log[again ? 'debug' : 'warn']('external work failed', {
      action,
      reason: failure.reason,
      error: failure.message,
      retryInMs: waitMs,
    });
  }

  /**
   * The wait of a failure for `reason`: its backoff, but at most PROBE_MS when no other resource of the
   * kind is to try again for that reason by then (this one is the probe).
   */
  private probeWait(definition: Kind, reason: string, now: number, backoffMs: number): number {
    let byReason = this.probes.get(definition);
    if (!byReason) this.probes.set(definition, (byReason = new Map<string, number>()));
    const probeAt = byReason.get(reason) ?? 0;
    if (probeAt > now) return backoffMs;
    const waitMs = Math.min(backoffMs, PROBE_MS);
    byReason.set(reason, now + waitMs);
    return waitMs;
  }

  /** The resources of a kind that failed for `reason` look again now: the cause has gone for one of them. */
  private wake(definition: Kind, reason: string, except: string): void {
    for (const [key, other] of this.entries) {
      const { failure } = other;
      if (key === except || other.definition !== definition || failure?.reason !== reason) continue;
      failure.retryAt = 0;
      this.options.enqueue(definition, other.namespace, other.name);
    }
  }

  private limiter(definition: Kind): Limiter {
    let limiter = this.limiters.get(definition);
    if (!limiter) {
      const { concurrency, ratePerSecond } = definition.external!;
      limiter = new Limiter(concurrency, ratePerSecond, this.now);
      this.limiters.set(definition, limiter);
    }
    return limiter;
  }
}

/** How often a resource's object is observed: its annotation, else its kind's interval. */
export function observeIntervalMs(definition: Kind, resource: CustomResource): number {
  const annotated = durationSeconds(resource.metadata.annotations?.[OBSERVE_INTERVAL_ANNOTATION]);
  return (annotated ?? definition.external!.observeIntervalSeconds) * 1000;
}
