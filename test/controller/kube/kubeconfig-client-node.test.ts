/**
 * Users with `exec` or `auth-provider`, which only @kubernetes/client-node turns into credentials: the
 * reader reports them, and loadClient() loads client-node for them only.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { kubeconfigTransport, readKubeconfig } from '../../../controller/kube/kubeconfig';
import { PEM, api, base64, caData, config, dir, useFakeApiServer, write } from './kubeconfig-fixture';
import { NODE_TS } from '../../support/node-ts';

useFakeApiServer();

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
    const child = spawn(process.execPath, [...NODE_TS, '-e', script], {
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
