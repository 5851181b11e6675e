/**
 * `reconstruct suspend|resume KIND/NAME`: the controller keeps its hands off a resource (and its children)
 * until it is resumed, as `flux suspend|resume` do. Suspend sets `reconstruct.dev/reconcile: disabled`
 * with who (as the API server knows the caller) and why; resume removes them and asks for a reconcile,
 * which `--wait` waits for.
 */
import {
  RECONCILE_ANNOTATION,
  RECONCILE_DISABLED,
  REQUESTED_AT_ANNOTATION,
  SUSPENDED_BY_ANNOTATION,
  SUSPEND_REASON_ANNOTATION,
} from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { KubeWriter } from '../../controller/kube/writer';
import { parseCommand } from '../kinds';
import { requestToken, timeoutOf, waitAll } from './reconcile';
import { TARGET_HELP, TARGET_OPTIONS, label, targets, type Io } from './target';

const SUSPEND_HELP = `Usage: reconstruct suspend KIND/NAME [-n NAMESPACE] [--reason TEXT]
       reconstruct suspend KIND --all [-n NAMESPACE | -A] [--reason TEXT]

Suspends the reconcile of a resource: the controller writes nothing for it or its children (no apply,
no prune, no sync) until it is resumed, and its status says Suspended, by whom and why. It sets the
annotation ${RECONCILE_ANNOTATION}=${RECONCILE_DISABLED} (and ${SUSPENDED_BY_ANNOTATION}, ${SUSPEND_REASON_ANNOTATION}).
A suspended resource that is deleted is still finalized.

Options:
  --reason TEXT         why, for the status and whoever reads it
${TARGET_HELP}
`;

const RESUME_HELP = `Usage: reconstruct resume KIND/NAME [-n NAMESPACE] [--wait [--timeout SECONDS]]
       reconstruct resume KIND --all [-n NAMESPACE | -A] [--wait]

Resumes the reconcile of a suspended resource: removes ${RECONCILE_ANNOTATION} and asks for a
reconcile now (${REQUESTED_AT_ANNOTATION}); with --wait, waits until it was handled and prints Ready.

Options:
  --wait                wait until the controller has reconciled it, then print its Ready
  --timeout SECONDS     with --wait: give up after this long (default 60)
${TARGET_HELP}
`;

/** The caller's user name as the API server authenticates it (SelfSubjectReview), or undefined. */
async function whoAmI(client: KubeClient): Promise<string | undefined> {
  try {
    const review = await client.request<{ status?: { userInfo?: { username?: string } } }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    return review.status?.userInfo?.username;
  } catch {
    return undefined; // An older API server, or a caller not allowed to ask: the status says no name.
  }
}

export async function suspendCommand(
  argv: string[],
  io: Io = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const parsed = parseCommand(
    'suspend',
    SUSPEND_HELP,
    argv,
    { ...TARGET_OPTIONS, reason: { type: 'string' } },
    io,
    true,
  );
  if (typeof parsed === 'number') return parsed;
  const found = await targets('suspend', SUSPEND_HELP, parsed, io);
  if (typeof found === 'number') return found;
  const { client, definition, resources } = found;
  try {
    const who = await whoAmI(client);
    const writer = new KubeWriter(client, 'reconstruct-cli');
    for (const r of resources) {
      await writer.mergePatch(definition, r.metadata.namespace, r.metadata.name, {
        metadata: {
          annotations: {
            [RECONCILE_ANNOTATION]: RECONCILE_DISABLED,
            [SUSPENDED_BY_ANNOTATION]: who ?? null,
            [SUSPEND_REASON_ANNOTATION]: parsed.values.reason ?? null,
          },
        },
      });
      io.out.write(`${label(definition, r)}: suspended\n`);
    }
    return 0;
  } catch (e) {
    io.err.write(`reconstruct suspend: ${(e as Error).message}\n`);
    return 2;
  }
}

export async function resumeCommand(
  argv: string[],
  io: Io = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const options = { ...TARGET_OPTIONS, wait: { type: 'boolean' }, timeout: { type: 'string' } } as const;
  const parsed = parseCommand('resume', RESUME_HELP, argv, options, io, true);
  if (typeof parsed === 'number') return parsed;
  const timeoutS = timeoutOf(parsed.values.timeout);
  if (timeoutS === undefined) {
    io.err.write(`reconstruct resume: --timeout takes a number of seconds, not "${parsed.values.timeout}"\n`);
    return 2;
  }
  const found = await targets('resume', RESUME_HELP, parsed, io);
  if (typeof found === 'number') return found;
  const { client, definition, resources } = found;
  try {
    const token = requestToken();
    const writer = new KubeWriter(client, 'reconstruct-cli');
    for (const r of resources) {
      await writer.mergePatch(definition, r.metadata.namespace, r.metadata.name, {
        metadata: {
          annotations: {
            [RECONCILE_ANNOTATION]: null,
            [SUSPENDED_BY_ANNOTATION]: null,
            [SUSPEND_REASON_ANNOTATION]: null,
            [REQUESTED_AT_ANNOTATION]: token,
          },
        },
      });
      io.out.write(`${label(definition, r)}: resumed\n`);
    }
    return parsed.values.wait ? await waitAll(client, definition, resources, token, timeoutS, io) : 0;
  } catch (e) {
    io.err.write(`reconstruct resume: ${(e as Error).message}\n`);
    return 2;
  }
}
