/**
 * What the kubeconfig tests share: a local HTTPS API server with certificates from a test CA (PEM at the
 * end) that records what each request presented, a temporary directory for the kubeconfigs and the files
 * they name, and kubeconfigs of one context. useFakeApiServer() starts them for a test file; `dir`, `api`
 * and `server` are the current test's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { stringify } from 'yaml';
import { createClient, type KubeClient } from '../../../controller/kube/client';
import {
  kubeconfigTransport,
  readKubeconfig,
  type KubeconfigOptions,
} from '../../../controller/kube/kubeconfig';

/** What the fake API server saw of one request. */
export interface Seen {
  /** The verified client certificate's common name. */
  cn?: string;
  authorization?: string;
  impersonateUser?: string;
  /** One entry per Impersonate-Group header line. */
  impersonateGroups?: string[];
  impersonateUid?: string;
  /** The TLS server name the client sent (none for an IP address). */
  sni?: string;
}

export interface ApiServer {
  url: string;
  seen: Seen[];
  /** Answers 401 to requests this returns false for. Default: all pass. */
  accept: (seen: Seen) => boolean;
}

/** The current test's directory (a new one for each test). */
export let dir: string;
export let server: https.Server;
/** The current test's view of the server (a new one for each test). */
export let api: ApiServer;

/** Starts the server for the test file, and gives each test a new directory and record. */
export function useFakeApiServer(): void {
  beforeAll(async () => {
    server = https.createServer({
      key: PEM.serverKey,
      cert: PEM.server,
      ca: PEM.ca,
      requestCert: true,
      rejectUnauthorized: false, // token users present no certificate
    });
    server.on('request', (req, res) => {
      const socket = req.socket as TLSSocket;
      const header = (name: string) => req.headers[name] as string | undefined;
      const seen: Seen = {
        cn: socket.authorized ? String(socket.getPeerCertificate().subject.CN) : undefined,
        authorization: header('authorization'),
        impersonateUser: header('impersonate-user'),
        impersonateGroups: req.headersDistinct['impersonate-group'],
        impersonateUid: header('impersonate-uid'),
        sni: typeof socket.servername === 'string' ? socket.servername : undefined,
      };
      api.seen.push(seen);
      const ok = api.accept(seen);
      res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(ok ? { kind: 'APIVersions', versions: ['v1'] } : { kind: 'Status', code: 401 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
    api = {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      seen: [],
      accept: () => true,
    };
  });
  afterEach(() => {
    jest.restoreAllMocks();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** Writes a file under the test's directory (YAML for an object) and returns its path. */
export function write(relative: string, content: string | object): string {
  const file = join(dir, relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : stringify(content));
  return file;
}

/** A kubeconfig with one context `main` (or `name`) of one cluster and one user. */
export function config(cluster: object, user: object, name = 'main') {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: api.url, ...cluster } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  };
}

export const base64 = (text: string) => Buffer.from(text).toString('base64');
/** The cluster fields that trust the test CA (a function: PEM is defined at the end). */
export const caData = () => ({ 'certificate-authority-data': base64(PEM.ca) });

/** GET /api through a client of the kubeconfig; resolves what the server saw of the last request. */
export async function get(client: KubeClient): Promise<Seen> {
  await client.request({ method: 'GET', path: '/api' });
  return api.seen[api.seen.length - 1];
}

export const clientOf = (options: KubeconfigOptions) =>
  createClient(kubeconfigTransport(readKubeconfig(options)));

/**
 * A test CA, an API server certificate (127.0.0.1, kubernetes.test) and two client certificates
 * (CN alice and bob, O devs), ECDSA P-256, valid for 100 years. Made with openssl:
 * `req -x509` for the CA, `x509 -req -CA` with subjectAltName / extendedKeyUsage for the others.
 */
export const PEM = {
  ca: `-----BEGIN CERTIFICATE-----
MIIBoDCCAUegAwIBAgIUB2Wq0J0FPS0lvylhK8T0BfZh/JQwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSa3ViZWNvbmZpZy10ZXN0LWNhMCAXDTI2MTEyMTIyNDAyNloY
DzIxMjYxMDI4MjI0MDI2WjAdMRswGQYDVQQDDBJrdWJlY29uZmlnLXRlc3QtY2Ew
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAT6d4qVUpbfgMEpF4mIkczWuimiFMcX
9vxD+y4KK6/euR/oB5n7uVXrQvBkK9X57FBquFWgMqRtm0f0FM8v0jpro2MwYTAd
BgNVHQ4EFgQUrWaN6pREmxKvrin3IVA68NpkiLQwHwYDVR0jBBgwFoAUrWaN6pRE
mxKvrin3IVA68NpkiLQwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAgQw
CgYIKoZIzj0EAwIDRwAwRAIgVwjS4Ib3vzoER8bs4kOfGdNnC5W+rJ7wVsJ6H0He
0/ACIH3drH/VxNaiL1Wu0wrHOGFQmPd32UvFM/ZKgFI2XzUU
-----END CERTIFICATE-----
`,
  server: `-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIUZEMlbNBjIf+rv1LKZOJTd5HUj84wCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSa3ViZWNvbmZpZy10ZXN0LWNhMCAXDTI2MTEyMTIyNDAyNloY
DzIxMjYxMDI4MjI0MDI2WjAZMRcwFQYDVQQDDA5rdWJlLWFwaXNlcnZlcjBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABOHxH71b2HS36BqUs/TLyz+297d6t4GKFx7L
07BPHdNG+ilZIV0eZmMPG4GcO290hGEYSslnRDLG9Ee6iqw5zTSjeTB3MCAGA1Ud
EQQZMBeHBH8AAAGCD2t1YmVybmV0ZXMudGVzdDATBgNVHSUEDDAKBggrBgEFBQcD
ATAdBgNVHQ4EFgQU14TkyNE94jtL+o7IGcZj2SrlcE0wHwYDVR0jBBgwFoAUrWaN
6pREmxKvrin3IVA68NpkiLQwCgYIKoZIzj0EAwIDSAAwRQIhAJLq9Eb7XwtAWxFi
ygYfslwHWWVS73ZTlbQCvA/UvbtUAiAS0iDHFGNW5CBrz/AqHgZwmITi3uUGWctx
Z0jan0jqVw==
-----END CERTIFICATE-----
`,
  serverKey: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTlmRMB+mIMtHqL2c
Wnt/bC7ju/+OTCeesy2mTuCBQxWhRANCAATh8R+9W9h0t+galLP0y8s/tve3ereB
ihcey9OwTx3TRvopWSFdHmZjDxuBnDtvdIRhGErJZ0QyxvRHuoqsOc00
-----END PRIVATE KEY-----
`,
  alice: `-----BEGIN CERTIFICATE-----
MIIBlzCCAT2gAwIBAgIUZEMlbNBjIf+rv1LKZOJTd5HUj88wCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSa3ViZWNvbmZpZy10ZXN0LWNhMCAXDTI2MTEyMTIyNDAyNloY
DzIxMjYxMDI4MjI0MDI2WjAfMQ0wCwYDVQQKDARkZXZzMQ4wDAYDVQQDDAVhbGlj
ZTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABFlh69hQ1df+koKBaVlZSBBckgfl
bZNqD9/hseh2PgHnbo1+Xt1FrzrMU859m9eoxoEyULtvVLHhJBx4tq2cj/+jVzBV
MBMGA1UdJQQMMAoGCCsGAQUFBwMCMB0GA1UdDgQWBBQWqf+Qh41CxErdKTQgkMBM
sDXfHzAfBgNVHSMEGDAWgBStZo3qlESbEq+uKfchUDrw2mSItDAKBggqhkjOPQQD
AgNIADBFAiBwDZxFkc1wQwNVEzpd4qO1XSzAlKPniHMqbhXW5NzhegIhAOkGlV+k
wmxpzJ/ZCnLsc260WjEJQLOUwZG5a8g+Y6+j
-----END CERTIFICATE-----
`,
  aliceKey: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRvZh2mJ5TjkcbG5i
KtgQuno0oxJRSX1yBPCH5fjo7ymhRANCAARZYevYUNXX/pKCgWlZWUgQXJIH5W2T
ag/f4bHodj4B526Nfl7dRa86zFPOfZvXqMaBMlC7b1Sx4SQceLatnI//
-----END PRIVATE KEY-----
`,
  bob: `-----BEGIN CERTIFICATE-----
MIIBljCCATugAwIBAgIUZEMlbNBjIf+rv1LKZOJTd5HUj9AwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSa3ViZWNvbmZpZy10ZXN0LWNhMCAXDTI2MTEyMTIyNDAyN1oY
DzIxMjYxMDI4MjI0MDI3WjAdMQ0wCwYDVQQKDARkZXZzMQwwCgYDVQQDDANib2Iw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQ393stbsjFj2tNJjKxbKQDkHOE3UAs
3W+YIQLcxP7VtJkyHO276aA99XU7hGfOlymu3WV7DS/28+t2E+5Rtu08o1cwVTAT
BgNVHSUEDDAKBggrBgEFBQcDAjAdBgNVHQ4EFgQUapd0iFPmsAKRZ4kO6VLcKSE1
fZEwHwYDVR0jBBgwFoAUrWaN6pREmxKvrin3IVA68NpkiLQwCgYIKoZIzj0EAwID
SQAwRgIhAIC+d7AyMRRMjyEnDYKfP+u+352tz7oPh59SqgzZkFvyAiEA4nzrG9Ix
REyOeroRdjqSEZM7Zl0/PSZ9VMqN4kbtI3Q=
-----END CERTIFICATE-----
`,
  bobKey: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgLOOfXB6hp/OmguqG
2wLGjK61eWJ7vHUWJ6GtJVyZr62hRANCAAQ393stbsjFj2tNJjKxbKQDkHOE3UAs
3W+YIQLcxP7VtJkyHO276aA99XU7hGfOlymu3WV7DS/28+t2E+5Rtu08
-----END PRIVATE KEY-----
`,
};
