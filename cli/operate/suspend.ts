/**
 * `reconstruct suspend|resume KIND/NAME`: the controller keeps its hands off a resource (and its children)
 * until it is resumed, as `flux suspend|resume` do. Suspend sets `reconstruct.dev/reconcile: disabled`
 * with who (as the API server knows the caller) and why; resume removes them and asks for a reconcile,
 * which `--wait` waits for.
 */
import {
  CUSTOM_RESOURCE_DEFINITION,
  crdName,
  RECONCILE_ANNOTATION,
  RECONCILE_DISABLED,
  REQUESTED_AT_ANNOTATION,
  SUSPENDED_BY_ANNOTATION,
  SUSPEND_REASON_ANNOTATION,
} from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import { KubeWriter } from '../../controller/kube/writer';
import { loadClient } from '../../controller/kube/client';
import { parseCommand } from '../kinds';
import { requestToken, timeoutOf, waitAll } from './reconcile';
import { TARGET_HELP, TARGET_OPTIONS, kindOf, label, targets, type Io, type TargetValues } from './target';

const SUSPEND_HELP = `Usage: reconstruct suspend KIND/NAME [-n NAMESPACE] [--reason TEXT]
       reconstruct suspend KIND --all [-n NAMESPACE | -A] [--reason TEXT]
       reconstruct suspend KIND --kind [--reason TEXT]

Suspends the reconcile of a resource: the controller writes nothing for it or its children (no apply,
no prune, no sync) until it is resumed, and its status says Suspended, by whom and why. It sets the
annotation ${RECONCILE_ANNOTATION}=${RECONCILE_DISABLED} (and ${SUSPENDED_BY_ANNOTATION}, ${SUSPEND_REASON_ANNOTATION}).
A suspended resource that is deleted is still finalized.

--kind suspends every resource of the kind, those made later too: the same annotations on the kind's
CustomResourceDefinition (a controller watching all namespaces sees them; one confined to --namespaces
does not watch CRDs: use --all there).

Options:
  --reason TEXT         why, for the status and whoever reads it
  --kind                the whole kind, through its CustomResourceDefinition
${TARGET_HELP}
`;

const RESUME_HELP = `Usage: reconstruct resume KIND/NAME [-n NAMESPACE] [--wait [--timeout SECONDS]]
       reconstruct resume KIND --all [-n NAMESPACE | -A] [--wait]
       reconstruct resume KIND --kind

Resumes the reconcile of a suspended resource: removes ${RECONCILE_ANNOTATION} and asks for a
reconcile now (${REQUESTED_AT_ANNOTATION}); with --wait, waits until it was handled and prints Ready.

--kind resumes a kind suspended with suspend --kind (each resource resumed by the kind's own annotation
going: a resource suspended on its own stays suspended).

Options:
  --kind                the whole kind, through its CustomResourceDefinition
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

/**
 * `--kind`: the annotations `marks` on the kind's CustomResourceDefinition (a suspension also says who);
 * 0 once done, 2 on a usage error or one the API server gives.
 */
async function annotateKind(
  command: string,
  help: string,
  { values, positionals }: { values: TargetValues; positionals: string[] },
  marks: Record<string, string | null>,
  io: Io,
): Promise<number> {
  if (positionals.length !== 1 || positionals[0].includes('/') || values.all) {
    io.err.write(`reconstruct ${command}: --kind takes a KIND alone\n\n${help}`);
    return 2;
  }
  const definition = await kindOf(command, positionals[0], values, io);
  if (typeof definition === 'number') return definition;
  try {
    const client = loadClient({ kubeconfig: values.kubeconfig, context: values.context });
    const who = marks[RECONCILE_ANNOTATION] ? await whoAmI(client) : undefined;
    const annotations = {
      ...marks,
      ...(marks[RECONCILE_ANNOTATION] ? { [SUSPENDED_BY_ANNOTATION]: who ?? null } : {}),
    };
    await new KubeWriter(client, 'reconstruct-cli').mergePatch(
      CUSTOM_RESOURCE_DEFINITION,
      undefined,
      crdName(definition),
      {
        metadata: { annotations },
      },
    );
    io.out.write(
      `every ${definition.kind}: ${command === 'suspend' ? 'suspended' : 'resumed'} (CustomResourceDefinition ${crdName(definition)})\n`,
    );
    return 0;
  } catch (e) {
    io.err.write(`reconstruct ${command}: ${(e as Error).message}\n`);
    return 2;
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
    { ...TARGET_OPTIONS, reason: { type: 'string' }, kind: { type: 'boolean' } },
    io,
    true,
  );
  if (typeof parsed === 'number') return parsed;
  if (parsed.values.kind) {
    const marks = {
      [RECONCILE_ANNOTATION]: RECONCILE_DISABLED,
      [SUSPEND_REASON_ANNOTATION]: parsed.values.reason ?? null,
    };
    return annotateKind('suspend', SUSPEND_HELP, parsed, marks, io);
  }
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
  const options = {
    ...TARGET_OPTIONS,
    wait: { type: 'boolean' },
    timeout: { type: 'string' },
    kind: { type: 'boolean' },
  } as const;
  const parsed = parseCommand('resume', RESUME_HELP, argv, options, io, true);
  if (typeof parsed === 'number') return parsed;
  if (parsed.values.kind) {
    if (parsed.values.wait) {
      io.err.write(
        `reconstruct resume: --wait waits for resources, not a kind (then: reconstruct reconcile KIND --all -A --wait)\n`,
      );
      return 2;
    }
    const marks = {
      [RECONCILE_ANNOTATION]: null,
      [SUSPEND_REASON_ANNOTATION]: null,
      [SUSPENDED_BY_ANNOTATION]: null,
    };
    return annotateKind('resume', RESUME_HELP, parsed, marks, io);
  }
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
