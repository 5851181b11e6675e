/**
 * What the API server receives from a client of the native kubeconfig reader (client certificate, token,
 * basic auth, impersonation, SNI), and the credentials rotated on disk that it picks up.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { loadClient } from '../../../controller/kube/client';
import { ApiError } from '../../../controller/kube/errors';
import { kubeconfigTransport, readKubeconfig } from '../../../controller/kube/kubeconfig';
import { PEM, api, base64, caData, config, get, useFakeApiServer, write } from './kubeconfig-fixture';

useFakeApiServer();

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
