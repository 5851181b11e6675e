/**
 * Offline child validation agrees with the API server: many children, valid ones and ones broken on
 * purpose (a schema-driven mutation at a random place: a wrong type, a required field removed or empty, a
 * value outside an enum, an unknown field, an int32 overflow; or a targeted one: long names, a Job name
 * that makes a long job-name label, an empty storage request, a selector that misses its template, ...),
 * each rendered offline as a child of a resource and each sent as the controller sends it (a server-side
 * apply with force and fieldValidation=Ignore), as a dry run. What the renderer accepts, the API server
 * must accept, and what it refuses, the API server must refuse: 0 disagreements either way.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  CONFIG_MAP,
  CRON_JOB,
  DAEMON_SET,
  DEPLOYMENT,
  HORIZONTAL_POD_AUTOSCALER,
  INGRESS,
  JOB,
  NETWORK_POLICY,
  PERSISTENT_VOLUME_CLAIM,
  POD_DISRUPTION_BUDGET,
  ROLE,
  ROLE_BINDING,
  SECRET,
  SERVICE,
  SERVICE_ACCOUNT,
  STATEFUL_SET,
  defineKind,
  type ApiKind,
  type Manifest,
  type ResourceProps,
} from '../../constructs/kit';
import { kubernetesSchema } from '../../constructs/kit/validate/kubernetes';
import { loadClient, type KubeClient } from '../../controller/kube/client';
import { ApiError, isBadRequest, isInternalError, isInvalid } from '../../controller/kube/errors';
import { resourcePath } from '../../controller/kube/paths';
import { applyRequest } from '../../controller/kube/writer';
import { formatProblem } from '../../synth/problem';
import { renderResources } from '../../synth/render';
import { TARGETED, VALID, pick, schemaMutations, validChild } from '../support/child-cases';
import { createNamespace, deleteNamespace } from '../support/kubectl';
import { mulberry32 } from '../support/random';

jest.setTimeout(120_000);

const CASES = Number(process.env.CHILD_CASES ?? 400);
const SEED = Number(process.env.CHILD_SEED ?? 20261127);

const KINDS: readonly ApiKind[] = [
  CONFIG_MAP,
  SECRET,
  SERVICE,
  SERVICE_ACCOUNT,
  PERSISTENT_VOLUME_CLAIM,
  DEPLOYMENT,
  STATEFUL_SET,
  DAEMON_SET,
  JOB,
  CRON_JOB,
  INGRESS,
  NETWORK_POLICY,
  POD_DISRUPTION_BUDGET,
  HORIZONTAL_POD_AUTOSCALER,
  ROLE,
  ROLE_BINDING,
];

/** A kind whose construct renders, as its one child, the object in `spec.child`: the offline path as is. */
class Carrier extends Construct {
  constructor(scope: Construct, id: string, { spec }: ResourceProps<{ child: Manifest }>) {
    super(scope, id);
    const { apiVersion, kind, metadata, ...rest } = spec.child;
    new ApiObject(this, 'child', { apiVersion, kind, metadata, ...rest });
  }
}

const carrierKind = defineKind<{ child: Manifest }>({
  apiVersion: 'carriers.example.com/v1',
  kind: 'Carrier',
  plural: 'carriers',
  schema: {
    description: 'Renders spec.child.',
    spec: {
      type: 'object',
      properties: { child: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    },
  },
  construct: Carrier,
  children: KINDS,
});

interface Verdict {
  readonly description: string;
  readonly offline: string[];
  readonly server?: string;
}

let ns: string;
let client: KubeClient;
beforeAll(() => {
  ns = createNamespace('children');
  client = loadClient({ userAgent: 'child-validation-test' });
});
afterAll(() => {
  if (ns) deleteNamespace(ns);
});

/** What the API server says of the controller's apply of `child` as a dry run: undefined when it takes it. */
async function dryRun(child: Manifest): Promise<string | undefined> {
  const kind = KINDS.find((k) => k.apiVersion === child.apiVersion && k.kind === child.kind)!;
  const name =
    typeof child.metadata.name === 'string' && child.metadata.name !== '' ? child.metadata.name : 'x';
  const request = applyRequest(resourcePath(kind, ns, name), child, 'reconstruct');
  try {
    await client.request({ ...request, query: { ...request.query, dryRun: 'All' } });
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // An apply the object's type refuses (a wrong type, an unknown field, a quantity that does not parse)
    // is a 500 with one of these messages.
    const typed =
      isInternalError(err) &&
      /failed to create typed patch object|failed to convert new object/.test(err.message);
    if (isInvalid(err) || isBadRequest(err) || typed) return err.message;
    throw err;
  }
}

it('what offline child validation accepts, a server dry run accepts, and what it refuses, it refuses', async () => {
  const random = mulberry32(SEED);
  const verdicts: Verdict[] = [];
  for (let i = 0; i < CASES; i++) {
    const kind = pick(random, KINDS);
    const child = validChild(random, kind, `c${i}`, ns, 'p');
    const schema = kubernetesSchema(kind.apiVersion, kind.kind)!;
    const roll = random();
    const mutations = roll < 0.25 ? VALID : roll < 0.65 ? schemaMutations(schema) : TARGETED;
    const description: string[] = [kind.kind];
    // A few tries: not every mutation has a place in every kind.
    for (let t = 0; t < 5 && description.length === 1 && roll >= 0.1; t++) {
      const done = pick(random, mutations)(random, child);
      if (done) description.push(done);
    }
    const resource = {
      apiVersion: carrierKind.apiVersion,
      kind: 'Carrier',
      metadata: { name: 'p', namespace: ns },
      spec: { child },
    };
    const checked = renderResources([resource], { kinds: [carrierKind] });
    const offline = checked.problems.map(formatProblem);
    // What the API server gets: the child as rendered, or, where synthesis itself refused it (a name),
    // as the resource had it, with the namespace the chart would give it.
    const unchecked = renderResources([resource], { kinds: [carrierKind], validateChildren: false });
    const sent = unchecked.manifests[0] ?? { ...child, metadata: { ...child.metadata, namespace: ns } };
    verdicts.push({ description: description.join(': '), offline, server: await dryRun(sent) });
  }

  const both = (offline: boolean, server: boolean) =>
    verdicts.filter((v) => v.offline.length > 0 === offline && (v.server !== undefined) === server);
  const [accepted, refused, onlyOffline, onlyServer] = [
    both(false, false),
    both(true, true),
    both(true, false),
    both(false, true),
  ];
  process.stdout.write(
    `child validation, ${CASES} children (seed ${SEED}): both accept ${accepted.length}, both refuse ${refused.length}, ` +
      `refused offline only ${onlyOffline.length}, refused by the API server only ${onlyServer.length}\n`,
  );
  expect(onlyOffline.map((v) => `${v.description}\n  offline: ${v.offline.join('\n  offline: ')}`)).toEqual(
    [],
  );
  expect(onlyServer.map((v) => `${v.description}\n  server: ${v.server}`)).toEqual([]);
  // The cases cover both sides.
  expect(accepted.length).toBeGreaterThan(CASES / 5);
  expect(refused.length).toBeGreaterThan(CASES / 5);
});
