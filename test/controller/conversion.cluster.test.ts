/**
 * A kind with two versions on the local control plane (Banner, test/fixtures/kinds/versioned.ts: v1beta1
 * stored and the construct's, v1alpha1 deprecated): the controller serves the conversion webhook, points
 * the CRD at itself with its CA, and the API server converts through it both ways, losslessly; its
 * serving certificate rotates while reads go on, and a CA rotated by another replica is taken up without a
 * failed read. With the controller gone, reads of v1alpha1 fail, and come back once it is up again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../controller/runtime/server';
import { bannerKind } from '../fixtures/kinds/versioned';
import { type RunningController, startController } from '../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  forgetConversionUrl,
  getJson,
  kubectl,
  waitFor,
} from '../support/kubectl';

jest.setTimeout(180_000);

const MODULE = join(__dirname, '../fixtures/kinds/versioned.ts');
const ALPHA = 'banners.v1alpha1.versions.example.com';
const BETA = 'banners.v1beta1.versions.example.com';
const CRD = bannerKind.crd.metadata.name;

let ns: string;
let port: number;
let controller: RunningController | undefined;

interface Banner {
  apiVersion: string;
  metadata: { name: string; annotations?: Record<string, string>; resourceVersion?: string };
  spec: Record<string, unknown>;
}

async function start(extra: string[] = []): Promise<RunningController> {
  const running = await startController([
    '--kinds',
    MODULE,
    '--no-builtin-kinds',
    '--namespaces',
    ns,
    '--lease-namespace',
    ns,
    '--webhook-addr',
    `127.0.0.1:${port}`,
    '--webhook-check-interval',
    '1',
    ...extra,
  ]);
  // It points the CRD at itself (its URL and CA) before it says it is ready.
  const webhook = getJson<{
    spec: { conversion: { webhook: { clientConfig: { url?: string; caBundle?: string } } } };
  }>(['crd', CRD]).spec.conversion.webhook.clientConfig;
  expect(webhook.url).toBe(`https://127.0.0.1:${port}/convert`);
  expect(webhook.caBundle).toBeTruthy();
  return running;
}

beforeAll(async () => {
  ns = createNamespace('conversion');
  port = await freePort();
  if (kubectl(['get', 'crd', CRD], { allowFail: true }).code === 0) forgetConversionUrl(CRD); // a killed run's
  applyYaml(JSON.stringify(bannerKind.crd), ['--server-side', '--force-conflicts']);
  kubectl(['wait', '--for=condition=Established', `crd/${CRD}`]);
  controller = await start();
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
  // The last test pointed it at a URL, as cert-manager's users would: the next apply of its YAML needs it back.
  forgetConversionUrl(CRD);
});

const get = (resource: string, name: string) => getJson<Banner>([resource, name, '-n', ns]);

it('reads a v1alpha1 banner as v1beta1 with the hub defaults, and makes its children from it', async () => {
  applyYaml(
    JSON.stringify({
      apiVersion: 'versions.example.com/v1alpha1',
      kind: 'Banner',
      metadata: { name: 'old', namespace: ns },
      spec: { text: 'hi', formal: true, color: 'red' },
    }),
  );
  const beta = get(BETA, 'old');
  expect(beta.spec).toEqual({ message: 'hi', style: 'formal', replicas: 1 });
  // The field v1beta1 has no place for is kept for the way back.
  expect(get(ALPHA, 'old').spec).toEqual({ text: 'hi', formal: true, color: 'red' });
  const data = await waitFor(
    () => getJson<{ data?: Record<string, string> }>(['configmap', 'old', '-n', ns]).data,
    { what: 'the ConfigMap of the banner' },
  );
  expect(data).toEqual({ message: 'Dear reader: hi', replicas: '1' });
});

it('keeps v1beta1 replicas: 3 through a v1alpha1 read and write back', () => {
  applyYaml(
    JSON.stringify({
      apiVersion: 'versions.example.com/v1beta1',
      kind: 'Banner',
      metadata: { name: 'new', namespace: ns },
      spec: { message: 'hello', replicas: 3 },
    }),
  );
  expect(get(ALPHA, 'new').spec).toEqual({ text: 'hello', formal: false });
  // Written back unchanged, as v1alpha1 (kubectl replace sends it as read); read again when the
  // controller's status write came between the read and the replace (409 Conflict), as a user would.
  for (let attempt = 1; ; attempt++) {
    const replaced = kubectl(['replace', '-f', '-'], {
      input: JSON.stringify(get(ALPHA, 'new')),
      allowFail: true,
    });
    if (replaced.code === 0) break;
    if (!replaced.stderr.includes('Conflict') || attempt >= 5)
      throw new Error(`kubectl replace: ${replaced.stderr}`);
  }
  expect(get(BETA, 'new').spec).toEqual({ message: 'hello', style: 'casual', replicas: 3 });
  // A change made through v1alpha1 wins where v1alpha1 can say it.
  kubectl(['patch', ALPHA, 'new', '-n', ns, '--type=merge', '-p', '{"spec":{"formal":true}}']);
  expect(get(BETA, 'new').spec).toEqual({ message: 'hello', style: 'formal', replicas: 3 });
});

/** A quantile of the API server's histogram of conversions of the CRD to `to`, as histogram_quantile does. */
function conversionQuantile(metrics: string, to: string, q: number): number {
  const buckets = [
    ...metrics.matchAll(/^apiserver_crd_conversion_webhook_duration_seconds_bucket\{([^}]*)\} (\S+)$/gm),
  ]
    .filter(([, labels]) => labels.includes(`crd_name="${CRD}"`) && labels.includes(`to_version="${to}"`))
    .map(([, labels, count]) => ({
      le: Number(/le="([^"]+)"/.exec(labels)![1].replace('+Inf', 'Infinity')),
      count: Number(count),
    }))
    .sort((a, b) => a.le - b.le);
  const total = buckets[buckets.length - 1].count;
  const rank = q * total;
  let lower = { le: 0, count: 0 };
  for (const b of buckets) {
    if (b.count >= rank)
      return lower.le + ((b.le - lower.le) * (rank - lower.count)) / Math.max(1, b.count - lower.count);
    lower = b;
  }
  return Infinity;
}

it('converts in milliseconds, as the API server measures it', () => {
  for (let i = 0; i < 200; i++) kubectl(['get', ALPHA, 'old', '-n', ns, '-o', 'name']);
  const metrics = kubectl(['get', '--raw', '/metrics']).stdout;
  const p50 = conversionQuantile(metrics, 'v1alpha1', 0.5);
  const p99 = conversionQuantile(metrics, 'v1alpha1', 0.99);
  console.log(
    `conversion to v1alpha1, the API server's view: p50 ${(p50 * 1000).toFixed(1)} ms, p99 ${(p99 * 1000).toFixed(1)} ms`,
  );
  expect(p99).toBeLessThan(1);
});

/** Reads v1alpha1 `rounds` times, returning the failures. */
async function readAlpha(rounds: number): Promise<string[]> {
  const failures: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const res = kubectl(['get', ALPHA, '-n', ns, '-o', 'name'], { allowFail: true });
    if (res.code !== 0) failures.push(res.stderr.trim());
    await new Promise((r) => setTimeout(r, 100));
  }
  return failures;
}

it('rotates its serving certificate while reads go on', async () => {
  await controller?.stop();
  // Certificates of about a minute, looked at every second: each look finds a third of its life gone.
  controller = await start(['--webhook-cert-days', String(60 / 86_400)]);
  const before = controller.logs.filter((l) =>
    l.includes('rotated the conversion webhook certificate'),
  ).length;
  expect(await readAlpha(40)).toEqual([]);
  const rotations = controller.logs.filter((l) =>
    l.includes('rotated the conversion webhook certificate'),
  ).length;
  expect(rotations - before).toBeGreaterThanOrEqual(2);
});

it('takes up a CA another replica rotated, trusting both before serving with the new one', async () => {
  const secret = getJson<{ data: Record<string, string>; metadata: { resourceVersion: string } }>([
    'secret',
    'reconstruct-controller-webhook-ca',
    '-n',
    ns,
  ]);
  // What a replica that rotates the CA writes: a new CA, the old one kept as ca-previous.crt.
  const { newCertificateAuthority } = await import('../../controller/kube/certificates');
  const next = newCertificateAuthority({ commonName: 'rotated-by-another-replica' });
  kubectl(['apply', '--server-side', '--force-conflicts', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'reconstruct-controller-webhook-ca', namespace: ns },
      data: {
        'ca.crt': Buffer.from(next.cert).toString('base64'),
        'ca.key': Buffer.from(next.key).toString('base64'),
        'ca-previous.crt': secret.data['ca.crt'],
      },
    }),
  });
  expect(await readAlpha(30)).toEqual([]);
  expect(controller!.logs.some((l) => l.includes('"newCa":true'))).toBe(true);
  const bundle = Buffer.from(
    getJson<{ spec: { conversion: { webhook: { clientConfig: { caBundle: string } } } } }>(['crd', CRD]).spec
      .conversion.webhook.clientConfig.caBundle,
    'base64',
  ).toString();
  expect(bundle.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
});

it('fails reads of v1alpha1 while no controller serves them, and serves them again once one is up', async () => {
  await controller?.stop();
  controller = undefined;
  const down = kubectl(['get', ALPHA, 'old', '-n', ns], { allowFail: true });
  expect(down.code).not.toBe(0);
  console.log(
    `with the webhook down, kubectl get ${ALPHA} says: ${down.stderr.trim().replace(/\n/g, ' | ')}`,
  );
  expect(down.stderr).toMatch(/conversion webhook/);
  // A local run points the CRD back at the Service its YAML names when it stops.
  const config = getJson<{
    spec: { conversion: { webhook: { clientConfig: { url?: string; service?: { name: string } } } } };
  }>(['crd', CRD]).spec.conversion.webhook.clientConfig;
  expect(config.url).toBeUndefined();
  expect(config.service?.name).toBe('reconstruct-controller-webhook');
  // v1beta1, the stored version, needs no conversion.
  expect(get(BETA, 'old').spec).toMatchObject({ message: 'hi' });
  const started = Date.now();
  controller = await start();
  await waitFor(() => kubectl(['get', ALPHA, 'old', '-n', ns], { allowFail: true }).code === 0, {
    what: 'v1alpha1 reads to work again',
  });
  console.log(
    `v1alpha1 reads worked again ${((Date.now() - started) / 1000).toFixed(1)} s after the controller started`,
  );
});

it('serves a certificate someone else issues and rotates (cert-manager), and leaves the CRD to them', async () => {
  await controller?.stop();
  controller = undefined;
  const { issueServingCertificate, newCertificateAuthority } =
    await import('../../controller/kube/certificates');
  const dir = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
  const write = (cert: { key: string; cert: string }) => {
    writeFileSync(join(dir, 'tls.key'), cert.key);
    writeFileSync(join(dir, 'tls.crt'), cert.cert);
  };
  // What cert-manager and its cainjector do: a certificate in a folder, the CA in the CRD.
  const first = newCertificateAuthority({ commonName: 'cert-manager-like' });
  write(issueServingCertificate(first, ['127.0.0.1', 'localhost']));
  const caBundle = (...cas: string[]) => Buffer.from(cas.join('')).toString('base64');
  const point = (bundle: string) =>
    kubectl([
      'patch',
      'crd',
      CRD,
      '--type=merge',
      '-p',
      JSON.stringify({
        spec: {
          conversion: {
            webhook: {
              clientConfig: { service: null, url: `https://127.0.0.1:${port}/convert`, caBundle: bundle },
            },
          },
        },
      }),
    ]);
  point(caBundle(first.cert));
  try {
    controller = await start(['--webhook-cert-dir', dir]);
    expect(await readAlpha(10)).toEqual([]);
    const second = newCertificateAuthority({ commonName: 'cert-manager-like-2' });
    point(caBundle(first.cert, second.cert));
    write(issueServingCertificate(second, ['127.0.0.1', 'localhost']));
    await waitFor(
      () => controller!.logs.some((l) => l.includes('took up the conversion webhook certificate')),
      {
        what: 'the controller to take up the new files',
      },
    );
    expect(await readAlpha(10)).toEqual([]);
    // It made no CA Secret of its own use, and left the caBundle as "cainjector" wrote it.
    const bundle = getJson<{ spec: { conversion: { webhook: { clientConfig: { caBundle: string } } } } }>([
      'crd',
      CRD,
    ]).spec.conversion.webhook.clientConfig.caBundle;
    expect(bundle).toBe(caBundle(first.cert, second.cert));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
