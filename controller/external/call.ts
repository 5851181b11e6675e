/**
 * One call of a kind's handler, the same in the controller and in a dry run: its Secrets read by name,
 * its signal aborted at the kind's timeout (or when `stop` aborts), and what it throws said in the kind's
 * words (an ExternalError) or as `ExternalError` with the message, any secret value in it masked.
 */
import { ExternalError, type CustomResource, type Kind, type Readiness } from '../../constructs/kit';
import { linkedSignal } from '../abortable';
import type { Logger } from '../log';
import { SecretReads } from './secrets';
import { EXTERNAL_ERROR, masked } from './steps';
import type { ExternalAction } from './verdict';
import { Tracing } from '../tracing/tracing';

/** A handler's failure, as the resource's Ready condition says it. */
export interface Failure {
  readonly reason: string;
  readonly message: string;
  /** When the handler said to look again (seconds), instead of the backoff. */
  readonly retryAfterSeconds?: number;
  /** The handler said retrying will not help until something changes (ExternalError's `stalled`). */
  readonly stalled?: boolean;
}

/** The Ready condition a handler's failure makes. */
export const failureReadiness = ({ reason, message, stalled }: Failure): Readiness => ({
  ready: false,
  reason,
  message,
  ...(stalled ? { stalled } : {}),
});

export interface Call {
  readonly definition: Kind;
  readonly resource: CustomResource;
  readonly action: ExternalAction;
  readonly desired: unknown;
  /** What was observed last (apply, delete). */
  readonly observed: unknown;
  readonly log: Logger;
  /** Read the Secrets again whatever is kept. */
  readonly freshSecrets: boolean;
}

/**
 * Calls the handler; resolves with what it returned (observe's value) or rejects with a Failure. When the
 * handler does not stop at its signal, `running` settles only when it does (or `abandonAfterMs` later):
 * its resource starts no other handler meanwhile.
 */
export async function callHandler(
  call: Call,
  secrets: SecretReads,
  stop: AbortSignal,
  abandonAfterMs = 60_000,
): Promise<{ value: unknown } | { failure: Failure; running: Promise<void> }> {
  const work = call.definition.external!;
  let values: string[] = [];
  // Waited for a slot while the controller stopped: not started.
  if (stop.aborted) {
    const failure = { reason: 'Stopping', message: `the controller stopped before ${call.action}` };
    return { failure, running: Promise.resolve() };
  }
  try {
    const data = await secrets.read(call.definition, call.resource, call.freshSecrets);
    values = SecretReads.values(call.definition, data);
    const linked = linkedSignal([stop], work.timeoutSeconds * 1000);
    const signal = linked.signal;
    const context = { resource: call.resource, signal, secrets: data, log: call.log };
    const pending =
      call.action === 'observe'
        ? work.observe(call.desired, context)
        : call.action === 'apply'
          ? work.apply(call.desired, call.observed, context)
          : work.delete(call.observed, context);
    const settled = pending.then(
      () => undefined,
      () => undefined,
    );
    try {
      return { value: await untilAborted(pending, signal, call.action, work.timeoutSeconds, stop) };
    } catch (err) {
      const running = signal.aborted
        ? Promise.race([settled, new Promise<void>((r) => setTimeout(r, abandonAfterMs).unref())])
        : Promise.resolve();
      return { failure: failureOf(err, values), running };
    } finally {
      linked.dispose();
    }
  } catch (err) {
    return { failure: failureOf(err, values), running: Promise.resolve() };
  }
}

function untilAborted<T>(
  pending: Promise<T>,
  signal: AbortSignal,
  action: string,
  timeoutSeconds: number,
  stop: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(
        stop.aborted
          ? new ExternalError('Stopping', `the controller stopped during ${action}`)
          : new ExternalError('Timeout', `${action} did not finish within ${timeoutSeconds} s`),
      );
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function failureOf(err: unknown, secrets: readonly string[]): Failure {
  // By its name: a kind bundled with its own copy of the kit throws another class's instances.
  if (err instanceof ExternalError || (err instanceof Error && err.name === 'ExternalError')) {
    const { reason = EXTERNAL_ERROR, retryAfterSeconds, stalled } = err as Partial<ExternalError>;
    return {
      reason,
      message: masked(err.message, secrets),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      ...(stalled ? { stalled } : {}),
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { reason: EXTERNAL_ERROR, message: masked(message, secrets) };
}

/**
 * `callHandler` as a function to call at the limiter's turn, in a span `external <action>` (its object, a
 * failure's reason) that is a child of the reconcile that started it, whenever the turn comes.
 */
export function tracedCall(
  tracing: Tracing = Tracing.off,
  call: Call,
  described: string,
  secrets: SecretReads,
  stop: AbortSignal,
): () => ReturnType<typeof callHandler> {
  const attributes = { 'reconstruct.external.action': call.action, 'reconstruct.external.object': described };
  return tracing.bind(() =>
    tracing.span(`external ${call.action}`, attributes, async (span) => {
      const outcome = await callHandler(call, secrets, stop);
      if ('failure' in outcome) {
        span?.setAttribute('reconstruct.external.failure', outcome.failure.reason);
        tracing.failed(span, outcome.failure.message);
      }
      return outcome;
    }),
  );
}
