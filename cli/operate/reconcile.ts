/**
 * `reconstruct reconcile KIND/NAME`: asks the controller to reconcile now (`reconstruct.dev/requested-at`,
 * as `flux reconcile` sets `reconcile.fluxcd.io/requestedAt`) and, with `--wait`, waits until the status
 * says it was handled (`status.lastHandledReconcileAt`), then prints its Ready condition.
 */
import { REQUESTED_AT_ANNOTATION, isSuspended, type CustomResource, type Kind } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { KubeWriter } from '../../controller/kube/writer';
import { sleep } from '../../controller/abortable';
import { parseCommand } from '../kinds';
import { readResources } from '../tree/walk';
import { TARGET_HELP, TARGET_OPTIONS, label, targets, type Io } from './target';

const HELP = `Usage: reconstruct reconcile KIND/NAME [-n NAMESPACE] [--wait [--timeout SECONDS]]
       reconstruct reconcile KIND --all [-n NAMESPACE | -A] [--wait]

Asks the controller to reconcile the resource now: sets the annotation ${REQUESTED_AT_ANNOTATION} to the
current time. The controller reconciles it at once, looks again at what it had stopped looking at (the
write-only children's existence, a drift repair it gave up, the not-Ready backoff), and writes the value
into status.lastHandledReconcileAt. A suspended resource is refused (resume it first).

Options:
  --wait                wait until the status says the request was handled, then print its Ready
  --timeout SECONDS     with --wait: give up after this long (default 60)
${TARGET_HELP}

Exit status: 0 when done (with --wait: every resource handled and Ready), 1 when one is suspended, not
handled in time or not Ready, 2 on an error.
`;

/** The token a request sets: the time, as Flux's. */
export const requestToken = (now = new Date()): string => now.toISOString();

/** Sets the request on `resource`. */
export function request(client: KubeClient, definition: Kind, resource: CustomResource, token: string) {
  const { namespace, name } = resource.metadata;
  return new KubeWriter(client, 'reconstruct-cli').mergePatch(definition, namespace, name, {
    metadata: { annotations: { [REQUESTED_AT_ANNOTATION]: token } },
  });
}

/**
 * Waits until the status of `resource` says `token` was handled; the resource then, or undefined when
 * `timeoutMs` passed first (or the resource went).
 */
export async function waitHandled(
  client: KubeClient,
  definition: Kind,
  resource: CustomResource,
  token: string,
  timeoutMs: number,
): Promise<CustomResource | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [now] = await readResources(
      client,
      definition,
      resource.metadata.namespace,
      resource.metadata.name,
    );
    const handled = (now?.status as { lastHandledReconcileAt?: string } | undefined)?.lastHandledReconcileAt;
    if (!now || handled === token) return now;
    if (Date.now() >= deadline) return undefined;
    await sleep(200);
  }
}

/** What the resource's Ready condition says, in one line; and whether it is True. */
export function readyLine(definition: Kind, resource: CustomResource): { line: string; ready: boolean } {
  const conditions = (
    resource.status as { conditions?: { type: string; status: string; reason?: string; message?: string }[] }
  )?.conditions;
  const ready = conditions?.find((c) => c.type === 'Ready');
  const why = ready?.reason ? ` ${ready.reason}${ready.message ? `: ${ready.message}` : ''}` : '';
  return {
    line: `${label(definition, resource)}: Ready=${ready?.status ?? 'Unknown'}${why}`,
    ready: ready?.status === 'True',
  };
}

/**
 * Waits until each resource's status says `token` was handled and prints its Ready line: 0 when all are
 * Ready, 1 when one is not or was not handled within `timeoutS`.
 */
export async function waitAll(
  client: KubeClient,
  definition: Kind,
  resources: readonly CustomResource[],
  token: string,
  timeoutS: number,
  io: Io,
): Promise<number> {
  let status = 0;
  for (const r of resources) {
    const now = await waitHandled(client, definition, r, token, timeoutS * 1000);
    if (!now) {
      io.err.write(
        `${label(definition, r)}: not handled within ${timeoutS} s (is the controller running?)\n`,
      );
      status = 1;
      continue;
    }
    const { line, ready } = readyLine(definition, now);
    io.out.write(`${line}\n`);
    if (!ready) status = 1;
  }
  return status;
}

/** `--timeout`, in seconds, or undefined when it is not a positive number. */
export function timeoutOf(value: string | undefined): number | undefined {
  const seconds = Number(value ?? '60');
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

export async function reconcileCommand(
  argv: string[],
  io: Io = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const options = { ...TARGET_OPTIONS, wait: { type: 'boolean' }, timeout: { type: 'string' } } as const;
  const parsed = parseCommand('reconcile', HELP, argv, options, io, true);
  if (typeof parsed === 'number') return parsed;
  const timeoutS = timeoutOf(parsed.values.timeout);
  if (timeoutS === undefined) {
    io.err.write(
      `reconstruct reconcile: --timeout takes a number of seconds, not "${parsed.values.timeout}"\n`,
    );
    return 2;
  }
  const found = await targets('reconcile', HELP, parsed, io);
  if (typeof found === 'number') return found;
  const { client, definition, resources } = found;
  let status = 0;
  try {
    const token = requestToken();
    const asked: CustomResource[] = [];
    for (const r of resources) {
      if (isSuspended(r)) {
        io.err.write(`${label(definition, r)} is suspended: resume it first (reconstruct resume)\n`);
        status = 1;
        continue;
      }
      await request(client, definition, r, token);
      io.out.write(`${label(definition, r)}: reconcile requested (${token})\n`);
      asked.push(r);
    }
    if (!parsed.values.wait) return status;
    return Math.max(status, await waitAll(client, definition, asked, token, timeoutS, io));
  } catch (e) {
    io.err.write(`reconstruct reconcile: ${(e as Error).message}\n`);
    return 2;
  }
}
