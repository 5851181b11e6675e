/**
 * Work outside Kubernetes (KindOptions.external): an object a kind keeps in another system (a DNS
 * provider's record, a database's user), made by async handlers the kit calls: `observe` reads it, `apply`
 * creates or updates it when what was observed differs from what the spec wants (`desired`), `delete`
 * removes it before the resource goes. The types an author writes against, and the checks and defaults
 * of the definition; the controller's side is in controller/external.
 */
import { sameJson } from './same-json';
import type { CustomResource } from './resource';

/** What a handler is given besides the object. */
export interface ExternalContext<Spec = unknown, Status = unknown> {
  /** The resource, as the API server stores it (its status as the kind's `Status` says). */
  readonly resource: CustomResource<Spec, Status>;
  /**
   * Aborted at the kind's timeout (`timeoutSeconds`) and when the controller stops: pass it on (`fetch(url,
   * { signal })`, a driver's query) so that a slow system never holds a slot of the kind's concurrency.
   */
  readonly signal: AbortSignal;
  /**
   * The data of the Secrets the kind declares (`secrets`), by the name the kind gives each, decoded:
   * `context.secrets.provider.token`. Read by the controller by name when the handler runs.
   */
  readonly secrets: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The controller's logger, with the resource's kind, namespace and name. Never log a secret's value. */
  readonly log: ExternalLog;
}

/** A handler's logger: a message and structured fields. */
export interface ExternalLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** A Secret's name read from a resource (a method's type: a kind of any spec is a Kind). */
type SecretNameOf<Spec> = { name(resource: CustomResource<Spec>): string }['name'];

/**
 * A Secret the handlers need (a provider's token, a server's admin account), read by name: the install
 * grants `get` on the names it can know (a fixed `name`), and `get` by name where a field of the spec names
 * it; never a list or watch of Secrets.
 */
export interface ExternalSecret<Spec = unknown> {
  /** Its name: fixed, or read from the resource (`(r) => r.spec.serverSecretRef.name`). */
  readonly name: string | SecretNameOf<Spec>;
  /**
   * Its namespace.
   * @default - the resource's namespace (a cluster-scoped kind must say)
   */
  readonly namespace?: string;
  /** The keys the handlers read: a missing one makes the resource Ready=False naming it. */
  readonly keys: readonly string[];
  /** Keys the handlers read when present (`port`, with a default of their own). */
  readonly optionalKeys?: readonly string[];
  /**
   * Keys whose values are not secret (a host, a port, a user name): a failure's message may show them.
   * Every other value of the Secret is masked (`***`) in what a handler's failure says.
   * @default - none: every value is masked
   */
  readonly plainKeys?: readonly string[];
}

/**
 * The handlers of a kind's external object and how the controller runs them. `Desired` is what the spec
 * wants of the object, `Observed` what the system says of it; the kit compares them (`differences`) and
 * calls `apply` only when they differ, so that a reconcile that changes nothing makes no write outside
 * either. `observe` is read-only: it runs in `reconstruct diff` and every dry run, where `apply` and
 * `delete` never do.
 *
 * Handlers run as promises beside the reconciles, never in them: a slow system holds no other resource,
 * at most `concurrency` of the kind's handlers run at once, one at a time per resource. A handler that
 * throws makes the resource Ready=False (an ExternalError's reason and message, else `ExternalError` and
 * the error's message, any secret value in it masked) and is retried with a backoff (5 s at most the first
 * time, doubling to 2 minutes, with jitter); a handler's `ExternalError` may say when to look again
 * instead. The object is observed again every `observeIntervalSeconds` (its drift, repaired), at once on
 * a reconcile now, and after every apply or delete.
 */
export interface KindExternal<Spec = unknown, Observed = unknown, Desired = unknown, Status = unknown> {
  /**
   * What the object is called in messages and `reconstruct diff`, with what names it: `(d) => \`DNS record
   * ${d.name}\``.
   */
  describe(desired: Desired): string;
  /**
   * What tells the object apart from every other in its system: two resources of the kind with the same
   * identity name one object, which the older holds while the other stands aside (Ready=False,
   * `Conflict`). Say here what tells systems apart when `describe` does not (a server's Secret).
   * @default - `describe(desired)`
   */
  identity?(desired: Desired, resource: CustomResource<Spec>): string;
  /** The Secrets the handlers need, by the name `context.secrets` gives each. */
  readonly secrets?: Readonly<Record<string, ExternalSecret<Spec>>>;
  /** What the spec wants of the object: computed from the resource alone (no I/O, no clock). */
  desired(resource: CustomResource<Spec>): Desired;
  /** Reads the object: undefined when it does not exist. Read-only: it runs in dry runs too. */
  observe(desired: Desired, context: ExternalContext<Spec, Status>): Promise<Observed | undefined>;
  /**
   * What `observed` lacks of `desired`, one line each (`ttl: 300 -> 600`), shown in Ready's message and
   * `reconstruct diff`; empty when the object is as the spec wants.
   * @default - each field of `desired` compared with the same field of `observed` (deep equality)
   */
  differences?(desired: Desired, observed: Observed): readonly string[];
  /** Creates the object (`observed` undefined) or brings it to `desired`. */
  apply(
    desired: Desired,
    observed: Observed | undefined,
    context: ExternalContext<Spec, Status>,
  ): Promise<void>;
  /**
   * Deletes the object, which `observed` says exists, when its resource is being deleted. The kit observes
   * again afterwards and holds the resource until observe finds nothing.
   */
  delete(observed: Observed, context: ExternalContext<Spec, Status>): Promise<void>;
  /**
   * Whether a resource being deleted leaves its object in place (a `deletionPolicy: Retain`): then
   * `delete` is not called and the resource goes at once.
   * @default - never: the object is deleted with its resource
   */
  retain?(resource: CustomResource<Spec>): boolean;
  /**
   * How often the object is observed again to find and repair its drift. A resource's annotation
   * `reconstruct.dev/observe-interval` (`30s`, `5m`, `1h`) overrides it.
   * @default 60
   */
  readonly observeIntervalSeconds?: number;
  /** How long a handler may take before its signal aborts it and the attempt counts as failed. @default 30 */
  readonly timeoutSeconds?: number;
  /** At most this many of the kind's handlers run at once. @default 10 */
  readonly concurrency?: number;
  /** At most this many of the kind's handlers start per second (a provider's rate limit). @default - no limit */
  readonly ratePerSecond?: number;
}

/**
 * A handler's failure in the kind's words: `reason` becomes the Ready condition's (CamelCase:
 * `ServerUnreachable`, `AccessDenied`), `message` its message. `retryAfterSeconds` says when to look
 * again (a provider's rate limit, an operation still running) instead of the backoff. `stalled` says that
 * retrying will not help until something changes (credentials refused, a request the system rejects):
 * the resource's status says `Stalled=True` (kstatus: Failed; Argo CD: Degraded) rather than
 * `Reconciling=True`; it is retried all the same.
 */
export class ExternalError extends Error {
  readonly reason: string;
  readonly retryAfterSeconds?: number;
  readonly stalled?: boolean;

  constructor(
    reason: string,
    message: string,
    options: { retryAfterSeconds?: number; stalled?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ExternalError';
    this.reason = reason;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.stalled) this.stalled = true;
  }
}

/** The annotation by which a resource overrides its kind's observe interval (`30s`, `5m`, `1h`). */
export const OBSERVE_INTERVAL_ANNOTATION = 'reconstruct.dev/observe-interval';

/** The finalizer the kit holds a resource of an external kind by until its object is deleted. */
export const EXTERNAL_FINALIZER = 'reconstruct.dev/external';

/** A kind's external work with every default filled in: what the controller runs (see KindExternal). */
export interface ExternalWork<Spec = unknown, Observed = unknown, Desired = unknown> {
  describe(desired: Desired): string;
  identity(desired: Desired, resource: CustomResource<Spec>): string;
  readonly secrets: Readonly<Record<string, ExternalSecret<Spec>>>;
  desired(resource: CustomResource<Spec>): Desired;
  observe(desired: Desired, context: ExternalContext<Spec>): Promise<Observed | undefined>;
  differences(desired: Desired, observed: Observed): readonly string[];
  apply(desired: Desired, observed: Observed | undefined, context: ExternalContext<Spec>): Promise<void>;
  delete(observed: Observed, context: ExternalContext<Spec>): Promise<void>;
  retain(resource: CustomResource<Spec>): boolean;
  readonly observeIntervalSeconds: number;
  readonly timeoutSeconds: number;
  readonly concurrency: number;
  readonly ratePerSecond?: number;
}

export const EXTERNAL_DEFAULTS = {
  observeIntervalSeconds: 60,
  timeoutSeconds: 30,
  concurrency: 10,
};

/** A kind's external work with its defaults. */
export function externalWork<Spec, Observed, Desired>(
  external: KindExternal<Spec, Observed, Desired>,
): ExternalWork<Spec, Observed, Desired> {
  return {
    ...EXTERNAL_DEFAULTS,
    secrets: {},
    differences: fieldDifferences,
    ...withoutUndefined(external),
    identity: (desired, resource) => external.identity?.(desired, resource) ?? external.describe(desired),
    retain: (resource) => external.retain?.(resource) ?? false,
  };
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The default `differences`: each field of `desired` against the same field of `observed`. */
export function fieldDifferences(desired: unknown, observed: unknown): string[] {
  if (!isRecord(desired) || !isRecord(observed)) {
    return sameJson(desired, observed) ? [] : [`${show(observed)} -> ${show(desired)}`];
  }
  return Object.entries(desired)
    .filter(([field, want]) => want !== undefined && !sameJson(want, observed[field]))
    .map(([field, want]) => `${field}: ${show(observed[field])} -> ${show(want)}`);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const show = (v: unknown) => (v === undefined ? '(none)' : JSON.stringify(v));

/** Seconds from a duration such as `30s`, `5m`, `1h`, `90` (seconds); undefined when it is not one. */
export function durationSeconds(text: string | undefined): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text ?? '');
  if (!m) return undefined;
  const scale = { ms: 0.001, s: 1, m: 60, h: 3600 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const seconds = Number(m[1]) * scale;
  return seconds > 0 ? seconds : undefined;
}

/** The problems of a kind's `external`, for KindDefinitionError. */
export function externalProblems(external: unknown, scope: string | undefined): string[] {
  if (external === undefined) return [];
  if (!isRecord(external)) return ['external must be an object with desired, observe, apply and delete'];
  const problems: string[] = [];
  for (const fn of ['describe', 'desired', 'observe', 'apply', 'delete']) {
    if (typeof external[fn] !== 'function') problems.push(`external.${fn} is missing: it must be a function`);
  }
  for (const fn of ['identity', 'differences', 'retain']) {
    if (external[fn] !== undefined && typeof external[fn] !== 'function') {
      problems.push(`external.${fn} must be a function when given`);
    }
  }
  for (const field of ['observeIntervalSeconds', 'timeoutSeconds', 'concurrency', 'ratePerSecond']) {
    const v = external[field];
    if (v !== undefined && !(typeof v === 'number' && v > 0 && Number.isFinite(v))) {
      problems.push(`external.${field} must be a positive number (got ${JSON.stringify(v)})`);
    }
  }
  const secrets = external.secrets;
  if (secrets !== undefined && !isRecord(secrets)) problems.push('external.secrets must be an object');
  for (const [id, s] of Object.entries(isRecord(secrets) ? secrets : {})) {
    if (!isRecord(s)) {
      problems.push(`external.secrets.${id} must be an object with name and keys`);
      continue;
    }
    if (typeof s.name !== 'string' && typeof s.name !== 'function') {
      problems.push(`external.secrets.${id}.name must be a Secret's name or a function of the resource`);
    }
    if (!Array.isArray(s.keys)) problems.push(`external.secrets.${id}.keys must list the keys it reads`);
    if (s.plainKeys !== undefined && !Array.isArray(s.plainKeys)) {
      problems.push(`external.secrets.${id}.plainKeys must list keys`);
    }
    if (scope === 'Cluster' && typeof s.namespace !== 'string') {
      problems.push(`external.secrets.${id}.namespace is missing: a cluster-scoped kind must name it`);
    }
  }
  return problems;
}
