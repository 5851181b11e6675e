/**
 * The native kubeconfig reader: which file wins (options, KUBECONFIG, ~/.kube/config, the service
 * account), how several merge, and errors that name the file and the field. What the API server receives
 * is kubeconfig-credentials.test.ts; users that need client-node, kubeconfig-client-node.test.ts.
 */
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import {
  kubeconfigTransport,
  readKubeconfig,
  type KubeconfigOptions,
} from '../../../controller/kube/kubeconfig';
import { PEM, api, clientOf, config, dir, get, server, useFakeApiServer, write } from './kubeconfig-fixture';

useFakeApiServer();

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
