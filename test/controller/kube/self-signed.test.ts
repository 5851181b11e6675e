/** The self-signed serving certificate, checked by node's own X.509 parser and a TLS handshake. */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '../../../controller/kube/self-signed';

describe('selfSignedCertificate', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const { key, cert, notAfter } = selfSignedCertificate(
    ['reconstruct-controller-metrics.reconstruct-system.svc', 'localhost', '127.0.0.1', '::1'],
    365,
    now,
  );
  const x509 = new X509Certificate(cert);

  it('is a v3 server certificate for the names given, signed by its own key, valid a year', () => {
    expect(x509.subject).toBe('CN=reconstruct-controller-metrics.reconstruct-system.svc');
    expect(x509.issuer).toBe(x509.subject);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(x509.subjectAltName).toBe(
      'DNS:reconstruct-controller-metrics.reconstruct-system.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    expect(x509.ca).toBe(false);
    expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(new Date(x509.validTo).getTime()).toBe(Math.floor(notAfter.getTime() / 1000) * 1000);
    expect(new Date(x509.validFrom).getTime()).toBe(now.getTime() - 3_600_000);
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkHost('example.com')).toBeUndefined();
  });

  it('serves TLS that a client trusting it verifies, host name included', async () => {
    const fresh = selfSignedCertificate(['localhost', '127.0.0.1']);
    const server = https.createServer({ key: fresh.key, cert: fresh.cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, ca: fresh.cert, servername: 'localhost' }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      expect(body).toBe('ok');
    } finally {
      server.close();
    }
  });
});
