/**
 * A fake external system for the unit tests of a kind with external work (`cdk8s-reconstruct/testing`):
 * objects by id, each call recorded, with what a real provider does to a controller: latency (that an
 * AbortSignal cuts short), failures, an outage, an object changed or lost out of band, and how many calls
 * ran at once. A kind under test takes it where it would take its real client:
 *
 * ```ts
 * const provider = new FakeProvider<DnsRecord>();
 * const kind = dnsRecordKind(provider); // the kind's handlers call provider.get/put/delete
 * provider.latencyMs = 50;
 * provider.down();                      // every call fails, as a refused connection
 * ```
 *
 * Objects have the ids the kind gives them (`put`), or ids the provider gives them (`create`, as most
 * cloud APIs do): the kind then keeps the id in its status and, before it has one (or after losing it),
 * finds its object with `list`.
 */

/** One call the handlers made. */
export interface ProviderCall {
  readonly op: 'get' | 'put' | 'delete' | 'create' | 'list';
  /** The object's id; for a create, the id the provider gave it; '' for a list. */
  readonly id: string;
  /** What a put or a create sent. */
  readonly value?: unknown;
}

/** What a call takes besides the object: the handler's signal, the credential it presents. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Compared with `token` when the provider has one: another is refused (401). */
  readonly token?: string;
}

/** A refusal or failure of the fake provider, with an HTTP-like status. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export class FakeProvider<T = unknown> {
  /** The objects, by id, as the provider has them. */
  readonly objects = new Map<string, T>();
  /** Every call, in order. */
  readonly calls: ProviderCall[] = [];
  /** How long each call takes. */
  latencyMs = 0;
  /** The credential calls must present, when set. */
  token?: string;
  /** What `create` names the objects it makes: `<idPrefix><n>`. */
  idPrefix = 'id-';
  /** The most calls that ran at once so far. */
  maxInFlight = 0;
  private inFlight = 0;
  private created = 0;
  private outage?: Error;
  private readonly failures: { op?: ProviderCall['op']; error: Error; times: number }[] = [];

  /** The calls that changed something (put, create, delete). */
  get writes(): ProviderCall[] {
    return this.calls.filter((c) => c.op !== 'get' && c.op !== 'list');
  }

  /** Makes the next `times` calls (of `op`, or any) fail with `error`. */
  fail(error: Error, options: { op?: ProviderCall['op']; times?: number } = {}): void {
    this.failures.push({ op: options.op, error, times: options.times ?? 1 });
  }

  /** Every call fails (`error`: a refused connection by default) until `up`. */
  down(error: Error = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })): void {
    this.outage = error;
  }

  up(): void {
    this.outage = undefined;
  }

  /** Changes an object out of band, as someone with the provider's console would (no call recorded). */
  change(id: string, value: T): void {
    this.objects.set(id, value);
  }

  /** Deletes an object out of band (no call recorded). */
  lose(id: string): void {
    this.objects.delete(id);
  }

  get(id: string, options: CallOptions = {}): Promise<T | undefined> {
    return this.call({ op: 'get', id }, options, () => structuredClone(this.objects.get(id)));
  }

  put(id: string, value: T, options: CallOptions = {}): Promise<void> {
    return this.call({ op: 'put', id, value }, options, () => {
      this.objects.set(id, structuredClone(value));
    });
  }

  /** Makes an object with an id of the provider's choosing, and answers with that id. */
  create(value: T, options: CallOptions = {}): Promise<string> {
    const id = `${this.idPrefix}${++this.created}`;
    return this.call({ op: 'create', id, value }, options, () => {
      this.objects.set(id, structuredClone(value));
      return id;
    });
  }

  /** Every object, with its id: how a kind finds its object before it knows the id. */
  list(options: CallOptions = {}): Promise<{ id: string; value: T }[]> {
    return this.call({ op: 'list', id: '' }, options, () =>
      [...this.objects].map(([id, value]) => ({ id, value: structuredClone(value) })),
    );
  }

  delete(id: string, options: CallOptions = {}): Promise<void> {
    return this.call({ op: 'delete', id }, options, () => {
      if (!this.objects.delete(id)) throw new ProviderError(404, `${id} not found`);
    });
  }

  private async call<R>(call: ProviderCall, { signal, token }: CallOptions, answer: () => R): Promise<R> {
    this.calls.push(call);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.latencyMs > 0) await sleep(this.latencyMs, signal);
      signal?.throwIfAborted();
      if (this.outage) throw this.outage;
      const failure = this.failures.find((f) => f.times > 0 && (f.op === undefined || f.op === call.op));
      if (failure) {
        failure.times--;
        throw failure.error;
      }
      if (this.token !== undefined && token !== this.token) throw new ProviderError(401, 'invalid token');
      return answer();
    } finally {
      this.inFlight--;
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
