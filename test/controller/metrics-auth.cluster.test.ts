/**
 * /metrics behind authentication on the local control plane, as an installed controller serves it: over
 * TLS (a self-signed certificate made at start), each scrape's bearer token checked with a TokenReview and
 * its user's `get` on /metrics with a SubjectAccessReview. No token: 401; a ServiceAccount without the
 * metrics-reader role: 403; one bound to it: the metrics. The controller runs with the install's rules
 * (support/controller-role.ts, the metrics-auth role included).
 */
import * as https from 'node:https';
import { freePort } from '../../controller/runtime/server';
import { type RunningController, startController } from '../support/controller';
import { createNamespace, deleteNamespace, kubectl, uniqueName } from '../support/kubectl';

jest.setTimeout(120_000);

let ns: string;
let reader: string;
let controller: RunningController | undefined;
let port: number;

beforeAll(async () => {
  ns = createNamespace('metrics-auth');
  reader = uniqueName('metrics-reader');
  kubectl(['create', 'clusterrole', reader, '--verb=get', '--non-resource-url=/metrics']);
  for (const sa of ['prometheus', 'nobody']) kubectl(['create', 'serviceaccount', sa, '-n', ns]);
  kubectl([
    'create',
    'clusterrolebinding',
    reader,
    `--clusterrole=${reader}`,
    `--serviceaccount=${ns}:prometheus`,
  ]);
  port = await freePort();
  // Not on loopback in a pod; here the flag says what an installed controller does by default.
  controller = await startController([
    '--namespaces',
    ns,
    '--metrics-addr',
    `127.0.0.1:${port}`,
    '--metrics-secure',
    'true',
  ]);
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  kubectl(['delete', 'clusterrole,clusterrolebinding', reader, '--ignore-not-found']);
  if (ns) deleteNamespace(ns);
});

const token = (sa: string) => kubectl(['create', 'token', sa, '-n', ns]).stdout.trim();

/** A scrape over TLS (the certificate is self-signed: not verified, as a ServiceMonitor's insecureSkipVerify). */
function scrape(bearer?: string): Promise<{ status: number; body: string; authenticate?: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port,
          path: '/metrics',
          rejectUnauthorized: false,
          headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
        },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body, authenticate: res.headers['www-authenticate'] }),
          );
        },
      )
      .on('error', reject);
  });
}

it('refuses a scrape without a token or whose user may not get /metrics, and answers the metrics reader', async () => {
  const anonymous = await scrape();
  expect(anonymous).toMatchObject({ status: 401, authenticate: 'Bearer' });
  expect(await scrape('not-a-token')).toMatchObject({
    status: 401,
    body: 'Unauthorized: the token is not valid\n',
  });
  const nobody = await scrape(token('nobody'));
  expect(nobody.status).toBe(403);
  expect(nobody.body).toBe(`Forbidden: system:serviceaccount:${ns}:nobody may not get /metrics\n`);
  const prometheus = await scrape(token('prometheus'));
  expect(prometheus.status).toBe(200);
  expect(prometheus.body).toContain('controller_runtime_reconcile_total');
  // Plain HTTP on that port gets nothing.
  const plain = await fetch(`http://127.0.0.1:${port}/metrics`).then(
    (r) => r.status,
    () => 'refused',
  );
  expect(plain).not.toBe(200);
});
