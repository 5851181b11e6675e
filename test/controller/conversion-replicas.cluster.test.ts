/**
 * Two replicas of the controller behind one address, as the install's Service puts them
 * (test/support/tcp-balancer.ts, in a process of its own, stands for the Service: each connection to the next replica, past one that
 * refuses it): the CRD of Banner (test/fixtures/kinds/versioned.ts) points at that address. Each replica,
 * the leader and the standby alike, answers conversions with a certificate the CRD's caBundle trusts (one
 * CA, shared through the Secret); they do not fight over the CRD; and reads of v1alpha1 go on while one
 * replica is SIGKILLed, then while the other stops on SIGTERM, which leaves the CRD pointing at the
 * address, not at a Service that is not there.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import { join } from 'node:path';
import { freePort } from '../../controller/runtime/server';
import { bannerKind } from '../fixtures/kinds/versioned';
import { leads, type RunningController, startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  forgetConversionUrl,
  getJson,
  kubectl,
  waitFor,
} from '../support/kubectl';
import { type RunningBalancer, startBalancer } from '../support/tcp-balancer';

jest.setTimeout(180_000);

const MODULE = join(__dirname, '../fixtures/kinds/versioned.ts');
const ALPHA = 'banners.v1alpha1.versions.example.com';
const CRD = bannerKind.crd.metadata.name;

interface ClientConfig {
  url?: string;
  service?: unknown;
  caBundle?: string;
}

let ns: string;
let ports: number[];
let balancer: RunningBalancer;
let url: string;
const replicas: RunningController[] = [];

const clientConfig = () =>
  getJson<{
    metadata: { resourceVersion: string };
    spec: { conversion: { webhook: { clientConfig: ClientConfig } } };
  }>(['crd', CRD]);

function start(port: number): Promise<RunningController> {
  return startController([
    '--kinds',
    MODULE,
    '--no-builtin-kinds',
    '--namespaces',
    ns,
    '--leader-elect',
    '--lease-namespace',
    ns,
    '--webhook-addr',
    `127.0.0.1:${port}`,
    '--webhook-url',
    url,
    '--webhook-check-interval',
    '1',
  ]);
}

beforeAll(async () => {
  ns = createNamespace('conversion-replicas');
  ports = [await freePort(), await freePort()];
  balancer = await startBalancer(ports);
  url = `https://127.0.0.1:${balancer.port}/convert`;
  if (kubectl(['get', 'crd', CRD], { allowFail: true }).code === 0) forgetConversionUrl(CRD); // a killed run's
  applyYaml(JSON.stringify(bannerKind.crd), ['--server-side', '--force-conflicts']);
  kubectl(['wait', '--for=condition=Established', `crd/${CRD}`]);
  for (const port of ports) replicas.push(await start(port));
  applyYaml(
    JSON.stringify({
      apiVersion: 'versions.example.com/v1beta1',
      kind: 'Banner',
      metadata: { name: 'b', namespace: ns },
      spec: { message: 'hello', replicas: 3 },
    }),
  );
});
afterAll(async () => {
  for (const replica of replicas) await replica.stop('SIGKILL');
  await balancer?.close();
  if (ns) deleteNamespace(ns);
  // The next test that applies the CRD from its YAML needs it without the URL.
  forgetConversionUrl(CRD);
});

/** A ConversionReview of one v1beta1 banner to v1alpha1, sent to one replica, trusting `ca` only. */
function convertAt(port: number, ca: string): Promise<string> {
  const body = JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: {
      uid: randomUUID(),
      desiredAPIVersion: 'versions.example.com/v1alpha1',
      objects: [
        {
          apiVersion: 'versions.example.com/v1beta1',
          kind: 'Banner',
          metadata: { name: 'direct', namespace: ns },
          spec: { message: 'hi', style: 'formal', replicas: 2 },
        },
      ],
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/convert',
        method: 'POST',
        ca,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          const review = JSON.parse(text) as {
            response: { result: { status: string }; convertedObjects: { spec: unknown }[] };
          };
          resolve(
            `${review.response.result.status} ${JSON.stringify(review.response.convertedObjects[0].spec)}`,
          );
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads v1alpha1 every 100 ms for `ms`, running `during` meanwhile; the failures, each with its time. */
async function readAlphaWhile(
  ms: number,
  during: () => Promise<unknown> = async () => {},
): Promise<string[]> {
  const failures: string[] = [];
  const started = Date.now();
  const reads = (async () => {
    while (Date.now() - started < ms) {
      const res = kubectl(['get', ALPHA, 'b', '-n', ns, '-o', 'name'], { allowFail: true });
      if (res.code !== 0) failures.push(`${Date.now() - started} ms: ${res.stderr.trim()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await during();
  await reads;
  return failures;
}

it('has every replica, leader or not, answer conversions with a certificate the CRD trusts', async () => {
  const config = clientConfig().spec.conversion.webhook.clientConfig;
  expect(config.url).toBe(url);
  expect(config.service).toBeUndefined();
  const ca = Buffer.from(config.caBundle ?? '', 'base64').toString();
  await waitFor(() => replicas.some(leads), { what: 'a replica to lead' });
  expect(replicas.filter(leads)).toHaveLength(1);
  for (const port of ports) {
    expect(await convertAt(port, ca)).toBe('Success {"text":"hi","formal":true}');
  }
  expect(kubectl(['get', ALPHA, 'b', '-n', ns, '-o', 'jsonpath={.spec}']).stdout).toBe(
    '{"formal":false,"text":"hello"}',
  );
});

it('leaves the CRD alone once it is right: two replicas checking every second write it no more', async () => {
  const before = clientConfig().metadata.resourceVersion;
  await new Promise((r) => setTimeout(r, 5000));
  expect(clientConfig().metadata.resourceVersion).toBe(before);
});

it('goes on converting while the leader is SIGKILLed, then while the other stops on SIGTERM', async () => {
  const leader = replicas.find(leads)!;
  const standby = replicas.find((r) => r !== leader)!;
  const killed = await readAlphaWhile(6000, async () => {
    await new Promise((r) => setTimeout(r, 1500));
    await leader.stop('SIGKILL');
  });
  // A read whose conversion was on the killed replica's connection at that moment may fail; none after it.
  console.log(
    `reads of v1alpha1 failed while the leader was SIGKILLed: ${killed.length} (${killed.join('; ')})`,
  );
  expect(killed.length).toBeLessThanOrEqual(1);
  expect(await readAlphaWhile(2000)).toEqual([]);

  // The killed one back, and the other stopped as a rollout stops a pod: it leaves the CRD as it is.
  replicas.splice(replicas.indexOf(leader), 1, await start(ports[replicas.indexOf(leader)]));
  const stopped = await readAlphaWhile(6000, async () => {
    await new Promise((r) => setTimeout(r, 1500));
    expect(await standby.stop('SIGTERM')).toBe(0);
  });
  console.log(`reads of v1alpha1 failed while the other replica stopped on SIGTERM: ${stopped.length}`);
  expect(stopped).toEqual([]);
  expect(clientConfig().spec.conversion.webhook.clientConfig.url).toBe(url);
  expect([...balancer.taken.values()].every((n) => n > 0)).toBe(true);
  await waitFor(() => leads(replicas.find((r) => r !== standby)!), { what: 'the restarted replica to lead' });
});
