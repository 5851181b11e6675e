/**
 * The native kubeconfig reader: which file wins, what the API server receives (client certificate,
 * token, basic auth, impersonation, SNI), rotated files picked up, and errors that name the file and
 * the field. The server is a local HTTPS server with certificates from a test CA (PEM at the end).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { stringify } from 'yaml';
import { createClient, loadClient, type KubeClient } from '../../../controller/kube/client';
import { ApiError } from '../../../controller/kube/errors';
import {
  kubeconfigTransport,
  readKubeconfig,
  type KubeconfigOptions,
} from '../../../controller/kube/kubeconfig';

/** What the fake API server saw of one request. */
interface Seen {
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

interface ApiServer {
  url: string;
  seen: Seen[];
  /** Answers 401 to requests this returns false for. Default: all pass. */
  accept: (seen: Seen) => boolean;
}

let dir: string;
let server: https.Server;
let api: ApiServer;

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
  api = { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, seen: [], accept: () => true };
});
afterEach(() => {
  jest.restoreAllMocks();
  server.closeAllConnections();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a file under the test's directory (YAML for an object) and returns its path. */
function write(relative: string, content: string | object): string {
  const file = join(dir, relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof content === 'string' ? content : stringify(content));
  return file;
}

/** A kubeconfig with one context `main` (or `name`) of one cluster and one user. */
function config(cluster: object, user: object, name = 'main') {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: api.url, ...cluster } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  };
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
/** The cluster fields that trust the test CA (a function: PEM is defined at the end). */
const caData = () => ({ 'certificate-authority-data': base64(PEM.ca) });

/** GET /api through a client of the kubeconfig; resolves what the server saw of the last request. */
async function get(client: KubeClient): Promise<Seen> {
  await client.request({ method: 'GET', path: '/api' });
  return api.seen[api.seen.length - 1];
}

const clientOf = (options: KubeconfigOptions) => createClient(kubeconfigTransport(readKubeconfig(options)));

describe('credentials the API server receives', () => {
  it('presents the client certificate and trusts the CA of files relative to the kubeconfig', async () => {
    write('conf/pki/ca.crt', PEM.ca);
    write('conf/pki/alice.crt', PEM.alice);
    write('conf/pki/alice.key', PEM.aliceKey);
    const file = write(
      'conf/config',
      config(
        { 'certificate-authority': 'pki/ca.crt' },
        { 'client-certificate': 'pki/alice.crt', 'client-key': 'pki/alice.key' },
      ),
    );
    // Jest's working directory is the repository: the paths only resolve against the file's.
    expect(await get(loadClient({ kubeconfig: file }))).toMatchObject({
      cn: 'alice',
      authorization: undefined,
    });
  });

  it('reads certificates from the -data fields and sends tls-server-name as SNI', async () => {
    const file = write(
      'config',
      config(
        { ...caData(), 'tls-server-name': 'kubernetes.test' },
        { 'client-certificate-data': base64(PEM.bob), 'client-key-data': base64(PEM.bobKey) },
      ),
    );
    expect(await get(loadClient({ kubeconfig: file }))).toMatchObject({ cn: 'bob', sni: 'kubernetes.test' });
  });

  it('rejects a server it cannot verify unless insecure-skip-tls-verify is set', async () => {
    const strict = write('strict', config({}, { token: 't' }));
    const failure = get(loadClient({ kubeconfig: strict }));
    await expect(failure).rejects.toMatchObject({ status: 0, reason: 'NetworkError' });
    await expect(failure).rejects.toThrow(/self-signed certificate/);
    expect(api.seen).toEqual([]);
    const insecure = write('insecure', config({ 'insecure-skip-tls-verify': true }, { token: 't' }));
    expect(await get(loadClient({ kubeconfig: insecure }))).toMatchObject({ authorization: 'Bearer t' });
  });

  it('sends a bearer token with the impersonation headers of as, as-groups and as-uid', async () => {
    const file = write(
      'config',
      config(caData(), { token: 'abc', as: 'jane', 'as-groups': ['admins', 'ops'], 'as-uid': '42' }),
    );
    expect(await get(loadClient({ kubeconfig: file }))).toEqual({
      authorization: 'Bearer abc',
      impersonateUser: 'jane',
      impersonateGroups: ['admins', 'ops'],
      impersonateUid: '42',
    });
  });

  it('sends basic auth for username and password', async () => {
    const file = write('config', config(caData(), { username: 'admin', password: 's3cret' }));
    expect((await get(loadClient({ kubeconfig: file }))).authorization).toBe(
      `Basic ${base64('admin:s3cret')}`,
    );
  });

  it('reads tokenFile relative to the kubeconfig, and wins over token as in client-go', async () => {
    write('conf/token', 'from-file\n');
    const file = write('conf/config', config(caData(), { tokenFile: 'token', token: 'inline' }));
    expect((await get(loadClient({ kubeconfig: file }))).authorization).toBe('Bearer from-file');
  });

  it('accepts the JSON kubeconfig the install test writes', async () => {
    const file = write('sa.json', JSON.stringify(config(caData(), { token: 'json' })));
    expect((await get(loadClient({ kubeconfig: file }))).authorization).toBe('Bearer json');
  });
});

describe('rotated credentials', () => {
  it('picks up a token rotated on disk after the server answers 401', async () => {
    const tokenFile = write('token', 'one');
    const client = loadClient({ kubeconfig: write('config', config(caData(), { tokenFile })) });
    expect((await get(client)).authorization).toBe('Bearer one');

    writeFileSync(tokenFile, 'two');
    api.accept = (seen) => seen.authorization === 'Bearer two';
    expect((await get(client)).authorization).toBe('Bearer two');
    expect(api.seen.map((s) => s.authorization)).toEqual(['Bearer one', 'Bearer one', 'Bearer two']);
  });

  it('picks up a client certificate rotated on disk after the server answers 401', async () => {
    const cert = write('client.crt', PEM.alice);
    const key = write('client.key', PEM.aliceKey);
    const client = loadClient({
      kubeconfig: write('config', config(caData(), { 'client-certificate': cert, 'client-key': key })),
    });
    expect((await get(client)).cn).toBe('alice');

    writeFileSync(cert, PEM.bob);
    writeFileSync(key, PEM.bobKey);
    api.accept = (seen) => seen.cn === 'bob';
    expect((await get(client)).cn).toBe('bob');
  });

  it('reads the token file again after 30 s without being asked', async () => {
    const tokenFile = write('token', 'one');
    const { credentials } = kubeconfigTransport(
      readKubeconfig({ kubeconfig: write('config', config(caData(), { tokenFile })) }),
    );
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    writeFileSync(tokenFile, 'two');
    expect((await credentials!(false)).headers.Authorization).toBe('Bearer one');
    clock.mockReturnValue(now + 31_000);
    expect((await credentials!(false)).headers.Authorization).toBe('Bearer two');
  });

  it('fails a request whose token file has gone, and recovers when it is back', async () => {
    const tokenFile = write('token', 'one');
    const client = loadClient({ kubeconfig: write('config', config(caData(), { tokenFile })) });
    rmSync(tokenFile);
    api.accept = (seen) => seen.authorization === 'Bearer two';
    const failure = get(client);
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toThrow(/user "main": cannot read tokenFile: ENOENT/);
    writeFileSync(tokenFile, 'two');
    expect((await get(client)).authorization).toBe('Bearer two');
  });
});

describe('which kubeconfig', () => {
  const inCluster = () => {
    write('sa/token', 'sa-token');
    write('sa/ca.crt', PEM.ca);
    return join(dir, 'sa');
  };
  const serverOf = (options: KubeconfigOptions) => readKubeconfig(options).cluster.server;

  it('takes options.kubeconfig, else KUBECONFIG, else ~/.kube/config, else the service account', () => {
    const explicit = write('explicit', config({ server: 'https://explicit' }, {}));
    const fromEnv = write('env', config({ server: 'https://env' }, {}));
    write('home/.kube/config', config({ server: 'https://home' }, {}));
    const env = {
      KUBECONFIG: fromEnv,
      HOME: join(dir, 'home'),
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      KUBERNETES_SERVICE_PORT: '443',
    };
    const serviceAccountDir = inCluster();
    expect(serverOf({ kubeconfig: explicit, env, serviceAccountDir })).toBe('https://explicit');
    expect(serverOf({ env, serviceAccountDir })).toBe('https://env');
    expect(serverOf({ env: { ...env, KUBECONFIG: '' }, serviceAccountDir })).toBe('https://home');
    expect(serverOf({ env: { ...env, KUBECONFIG: '', HOME: dir }, serviceAccountDir })).toBe(
      'https://10.0.0.1:443',
    );
  });

  it('merges KUBECONFIG files as client-go: the first definition of a name and the first current-context win', () => {
    const first = write('a/config', {
      clusters: [{ name: 'shared', cluster: { server: 'https://first' } }],
      users: [{ name: 'u', user: { token: 'first' } }],
      contexts: [{ name: 'ctx-a', context: { cluster: 'shared', user: 'u' } }],
      'current-context': '',
    });
    const second = write('b/config', {
      clusters: [
        { name: 'shared', cluster: { server: 'https://second' } },
        { name: 'own', cluster: { server: 'https://own', 'certificate-authority': 'ca.crt' } },
      ],
      users: [{ name: 'u', user: { token: 'second' } }],
      contexts: [
        { name: 'ctx-a', context: { cluster: 'own', user: 'u' } },
        { name: 'ctx-b', context: { cluster: 'own', user: 'u' } },
      ],
      'current-context': 'ctx-b',
    });
    const third = write('c/config', { 'current-context': 'ctx-a' });
    const KUBECONFIG = [first, join(dir, 'missing'), second, third].join(delimiter);

    const merged = readKubeconfig({ env: { KUBECONFIG } });
    // current-context: the first non-empty one (b's), not the last (c's).
    expect(merged.context).toBe('ctx-b');
    // A relative path resolves against the file that holds it, b/.
    expect(merged.cluster).toMatchObject({ server: 'https://own', caFile: join(dir, 'b/ca.crt') });
    expect(merged.user.token).toBe('first');
    expect(readKubeconfig({ env: { KUBECONFIG }, context: 'ctx-a' }).cluster.server).toBe('https://first');
  });

  it('lets options.context override current-context', () => {
    const file = write('config', {
      ...config({}, { token: 'main' }),
      clusters: [
        { name: 'main', cluster: { server: 'https://main' } },
        { name: 'other', cluster: { server: 'https://other' } },
      ],
      contexts: [
        { name: 'main', context: { cluster: 'main', user: 'main' } },
        { name: 'other', context: { cluster: 'other' } },
      ],
    });
    expect(serverOf({ kubeconfig: file })).toBe('https://main');
    const other = readKubeconfig({ kubeconfig: file, context: 'other' });
    expect(other.cluster.server).toBe('https://other');
    expect(other.user.name).toBe(''); // no user: anonymous
  });

  it('uses the service account in a pod, with its CA, and reads a rotated token after a 401', async () => {
    const serviceAccountDir = inCluster();
    const port = (server.address() as AddressInfo).port;
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(port) };
    const client = clientOf({ env, serviceAccountDir });
    expect((await get(client)).authorization).toBe('Bearer sa-token');

    write('sa/token', 'rotated');
    api.accept = (seen) => seen.authorization === 'Bearer rotated';
    expect((await get(client)).authorization).toBe('Bearer rotated');
  });

  it('brackets an IPv6 service host', () => {
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    expect(serverOf({ env, serviceAccountDir: inCluster() })).toBe('https://[fd00::1]:443');
  });
});

describe('users that need @kubernetes/client-node', () => {
  it('reports exec users, with a relative command resolved against the kubeconfig', () => {
    const exec = (command: string) => ({
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command, args: ['token'] },
    });
    const relative = readKubeconfig({
      kubeconfig: write('conf/config', config({}, exec('./bin/get-token'))),
    });
    expect(relative.needsClientNode).toBe('exec');
    expect(relative.user.exec).toMatchObject({ command: join(dir, 'conf/bin/get-token'), args: ['token'] });
    // A bare name is looked up on PATH.
    const bare = readKubeconfig({ kubeconfig: write('bare', config({}, exec('aws'))) });
    expect(bare.user.exec?.command).toBe('aws');
    expect(() => kubeconfigTransport(bare)).toThrow(
      `kubeconfig ${join(dir, 'bare')}: user "main" uses exec, which needs @kubernetes/client-node`,
    );
  });

  it('reports auth-provider users', () => {
    const file = write('config', config({}, { 'auth-provider': { name: 'oidc', config: {} } }));
    expect(readKubeconfig({ kubeconfig: file }).needsClientNode).toBe('auth-provider');
  });

  /**
   * loadClient() and one request in a process of its own (Jest cannot load client-node, which is
   * ESM-only); resolves whether client-node ended up in the module cache.
   */
  const requestInNode = async (kubeconfig: string): Promise<boolean> => {
    const script = `
      const client = require(${JSON.stringify(join(__dirname, '../../../controller/kube/client.ts'))});
      client.loadClient({ kubeconfig: process.env.TEST_KUBECONFIG })
        .request({ method: 'GET', path: '/api' })
        .then(() => {
          const files = Object.keys(require.cache);
          process.stdout.write(JSON.stringify(files.some((f) => f.includes('@kubernetes/client-node'))));
          process.exit(0);
        }, (err) => { console.error(err.message); process.exit(1); });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      env: { ...process.env, TEST_KUBECONFIG: kubeconfig },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`exit ${String(code)}: ${err}`);
    return JSON.parse(out) as boolean;
  };

  it('leaves client-node unloaded for a certificate user', async () => {
    const user = { 'client-certificate-data': base64(PEM.alice), 'client-key-data': base64(PEM.aliceKey) };
    expect(await requestInNode(write('config', config(caData(), user)))).toBe(false);
    expect(api.seen).toMatchObject([{ cn: 'alice' }]);
  }, 30_000);

  it('loads client-node for an exec user, and still sends the as-groups it does not know', async () => {
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'from-exec' },
    };
    const exec = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: ['-e', `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`],
    };
    const user = { exec, as: 'jane', 'as-groups': ['admins', 'ops'] };
    expect(await requestInNode(write('config', config(caData(), user)))).toBe(true);
    expect(api.seen).toEqual([
      { authorization: 'Bearer from-exec', impersonateUser: 'jane', impersonateGroups: ['admins', 'ops'] },
    ]);
  }, 30_000);
});

describe('errors name the file and the field', () => {
  /** The message of the error that reading `kubeconfig` (and its files) throws. */
  const error = (kubeconfig: object, options: KubeconfigOptions = {}): string => {
    const file = write('config', kubeconfig);
    try {
      kubeconfigTransport(readKubeconfig({ kubeconfig: file, ...options }));
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error('no error');
  };
  const at = () => `kubeconfig ${join(dir, 'config')}`;

  it('a context that names an undefined user or cluster', () => {
    const contexts = (context: object) => ({
      ...config({}, {}),
      contexts: [{ name: 'x', context }],
      'current-context': 'x',
    });
    expect(error(contexts({ cluster: 'main', user: 'y' }))).toBe(
      `${at()}: context "x" names user "y", which is not defined`,
    );
    expect(error(contexts({ cluster: 'gone' }))).toBe(
      `${at()}: context "x" names cluster "gone", which is not defined`,
    );
  });

  it('an unknown context, or none at all', () => {
    expect(error(config({}, {}), { context: 'nope' })).toBe(`${at()}: context "nope" is not defined`);
    expect(error({ ...config({}, {}), 'current-context': '' })).toBe(
      `${at()}: current-context is not set and no context was given`,
    );
  });

  it('a missing kubeconfig, certificate or key file', () => {
    const absent = join(dir, 'absent');
    expect(() => readKubeconfig({ kubeconfig: absent })).toThrow(
      `kubeconfig ${absent}: cannot read it: ENOENT: no such file or directory, open '${absent}'`,
    );
    expect(error(config({ 'certificate-authority': 'ca.crt' }, {}))).toBe(
      `${at()}: cluster "main": cannot read certificate-authority: ` +
        `ENOENT: no such file or directory, open '${join(dir, 'ca.crt')}'`,
    );
    expect(error(config({}, { 'client-certificate': 'c.crt', 'client-key': 'c.key' }))).toBe(
      `${at()}: user "main": cannot read client-certificate: ` +
        `ENOENT: no such file or directory, open '${join(dir, 'c.crt')}'`,
    );
  });

  it('fields that are missing, contradictory or unsupported', () => {
    const user = (fields: object) => error(config({}, fields));
    expect(error({ ...config({}, {}), clusters: [{ name: 'main', cluster: {} }] })).toBe(
      `${at()}: cluster "main" has no server`,
    );
    expect(error(config({ 'proxy-url': 'http://proxy:3128' }, {}))).toBe(
      `${at()}: cluster "main" sets proxy-url, which this client does not support`,
    );
    expect(user({ 'client-certificate-data': 'eA==' })).toBe(
      `${at()}: user "main" has a client-certificate but no client-key`,
    );
    expect(user({ token: 't', username: 'u', password: 'p' })).toBe(
      `${at()}: user "main" sets both a token and username/password: only one is allowed`,
    );
    expect(user({ as: 'jane', 'as-groups': ['a', ''] })).toBe(
      `${at()}: user "main": as-groups must be a list of group names`,
    );
    expect(user({ token: 42 })).toBe(`${at()}: user "main": token must be a string`);
    expect(error({ ...config({}, {}), users: [{ user: {} }] })).toBe(`${at()}: users[0] has no name`);
  });

  it('no kubeconfig anywhere', () => {
    expect(() => readKubeconfig({ env: { HOME: dir }, serviceAccountDir: join(dir, 'sa') })).toThrow(
      `no kubeconfig: KUBECONFIG is not set, ${join(dir, '.kube/config')} does not exist, ` +
        `and there is no service account token in ${join(dir, 'sa')}`,
    );
    expect(() => readKubeconfig({ env: { KUBECONFIG: join(dir, 'a') } })).toThrow(
      `KUBECONFIG=${join(dir, 'a')}: none of these files exists`,
    );
  });

  it('a service account without the service address', () => {
    write('sa/token', 't');
    expect(() => readKubeconfig({ env: {}, serviceAccountDir: join(dir, 'sa') })).toThrow(
      `in-cluster config ${join(dir, 'sa')}: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set`,
    );
  });
});

/**
 * A test CA, an API server certificate (127.0.0.1, kubernetes.test) and two client certificates
 * (CN alice and bob, O devs), ECDSA P-256, valid for 100 years. Made with openssl:
 * `req -x509` for the CA, `x509 -req -CA` with subjectAltName / extendedKeyUsage for the others.
 */
const PEM = {
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
