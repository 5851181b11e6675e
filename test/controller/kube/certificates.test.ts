/** The webhook's CA and serving certificates, checked by node's own X.509 parser and TLS handshakes. */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import {
  caBundle,
  issueServingCertificate,
  needsRenewal,
  newCertificateAuthority,
} from '../../../controller/kube/certificates';
import { selfSignedCertificate } from '../../../controller/kube/self-signed';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const NAMES = ['reconstruct-webhook.reconstruct-system.svc', 'localhost', '127.0.0.1'];

/** Serves TLS with `serving` and connects trusting `ca`; resolves once the client verified the server. */
async function handshake(
  serving: { key: string; cert: string },
  ca: string,
  servername?: string,
): Promise<void> {
  const server = tls.createServer({ key: serving.key, cert: serving.cert }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await new Promise<void>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca, servername }, () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('newCertificateAuthority', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const ca = newCertificateAuthority({ commonName: 'reconstruct-webhook-ca', days: 3650, now });
  const x509 = new X509Certificate(ca.cert);

  it('is a self-signed CA with its key, valid from an hour ago for the days given', () => {
    expect(x509.subject).toBe('CN=reconstruct-webhook-ca');
    expect(x509.issuer).toBe(x509.subject);
    expect(x509.ca).toBe(true);
    expect(x509.checkIssued(x509)).toBe(true);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(ca.key))).toBe(true);
    expect(new Date(x509.validFrom)).toEqual(new Date(now.getTime() - HOUR));
    expect(new Date(x509.validTo)).toEqual(new Date(now.getTime() + 3650 * DAY));
    expect(ca.notBefore).toEqual(new Date(x509.validFrom));
    expect(ca.notAfter).toEqual(new Date(x509.validTo));
  });

  it('writes a validity past 2049 as GeneralizedTime, which the parser reads back', () => {
    const late = newCertificateAuthority({
      commonName: 'late',
      days: 30,
      now: new Date('2049-12-20T00:00:00Z'),
    });
    expect(new Date(new X509Certificate(late.cert).validTo)).toEqual(new Date('2050-01-19T00:00:00Z'));
  });
});

describe('issueServingCertificate', () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const ca = newCertificateAuthority({ commonName: 'reconstruct-webhook-ca', now });
  const caX509 = new X509Certificate(ca.cert);
  const serving = issueServingCertificate(ca, [...NAMES, '::1'], { days: 365, now });
  const x509 = new X509Certificate(serving.cert);

  it("is a server certificate for the names given, signed by the CA's key", () => {
    expect(x509.subject).toBe('CN=reconstruct-webhook.reconstruct-system.svc');
    expect(x509.issuer).toBe(caX509.subject);
    expect(x509.checkIssued(caX509)).toBe(true);
    expect(x509.verify(caX509.publicKey)).toBe(true);
    expect(x509.verify(x509.publicKey)).toBe(false);
    expect(x509.checkPrivateKey(createPrivateKey(serving.key))).toBe(true);
    expect(x509.ca).toBe(false);
    expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // node names the extended key usage so
    expect(x509.subjectAltName).toBe(
      'DNS:reconstruct-webhook.reconstruct-system.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    expect(x509.checkHost('reconstruct-webhook.reconstruct-system.svc')).toBeDefined();
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkHost('example.com')).toBeUndefined();
    expect(new Date(x509.validFrom)).toEqual(new Date(now.getTime() - HOUR));
    expect(new Date(x509.validTo)).toEqual(new Date(now.getTime() + 365 * DAY));
    expect(serving.notAfter).toEqual(new Date(x509.validTo));
  });

  it("ends with the CA's end at the latest", () => {
    const shortCa = newCertificateAuthority({ commonName: 'short', days: 30, now });
    const cut = issueServingCertificate(shortCa, NAMES, { days: 365, now });
    expect(cut.notAfter).toEqual(shortCa.notAfter);
    expect(new Date(new X509Certificate(cut.cert).validTo)).toEqual(shortCa.notAfter);
  });

  it('is verified in a TLS handshake trusting the CA, host name and IP address included', async () => {
    const live = issueServingCertificate(newCertificateAuthority({ commonName: 'live' }), NAMES);
    const liveCa = newCertificateAuthority({ commonName: 'live' });
    const fromLiveCa = issueServingCertificate(liveCa, NAMES);
    await expect(handshake(fromLiveCa, liveCa.cert, 'localhost')).resolves.toBeUndefined();
    await expect(handshake(fromLiveCa, liveCa.cert, NAMES[0])).resolves.toBeUndefined();
    await expect(handshake(fromLiveCa, liveCa.cert)).resolves.toBeUndefined(); // by IP: 127.0.0.1
    await expect(handshake(fromLiveCa, liveCa.cert, 'example.com')).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    // A CA of the same name but another key is not the issuer.
    await expect(handshake(live, liveCa.cert, 'localhost')).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('is verified against a bundle of two CAs of the same name, by the key identifiers', async () => {
    const old = newCertificateAuthority({ commonName: 'reconstruct-webhook-ca' });
    const next = newCertificateAuthority({ commonName: 'reconstruct-webhook-ca' });
    const bundle = caBundle(old.cert, next.cert);
    await handshake(issueServingCertificate(old, NAMES), bundle, 'localhost');
    await handshake(issueServingCertificate(next, NAMES), bundle, 'localhost');
  });

  it('refuses a CA that is not one, a key that is not its own, and an expired CA', () => {
    const notCa = selfSignedCertificate(['localhost']);
    expect(() => issueServingCertificate(notCa, NAMES)).toThrow('CN=localhost is not a CA');
    const other = newCertificateAuthority({ commonName: 'other' });
    expect(() => issueServingCertificate({ key: other.key, cert: ca.cert }, NAMES, { now })).toThrow(
      'the key given is not the key of CN=reconstruct-webhook-ca',
    );
    expect(() => issueServingCertificate(ca, NAMES, { now: new Date(ca.notAfter.getTime() + 1) })).toThrow(
      'has expired',
    );
    expect(() => issueServingCertificate(ca, [], { now })).toThrow('at least one name');
  });
});

describe('needsRenewal', () => {
  // 30 days from now, valid from an hour ago: a lifetime of 30 days and an hour, a third of it left at
  // `renewAt`.
  const now = new Date('2026-11-27T12:00:00Z');
  const ca = newCertificateAuthority({ commonName: 'renewal', now });
  const { cert } = issueServingCertificate(ca, NAMES, { days: 30, now });
  const from = now.getTime() - HOUR;
  const to = now.getTime() + 30 * DAY;
  const renewAt = to - (to - from) / 3;
  const at = (ms: number) => ({ now: new Date(ms) });

  it.each([
    ['before it is valid', from - 1, true],
    ['when it becomes valid', from, false],
    ['just before a third of its lifetime is left', renewAt, false],
    ['once less than a third is left', renewAt + 1, true],
    ['the last millisecond of its validity', to - 1, true],
    ['once expired', to, true],
  ])('%s: %s', (_when, time, expected) => {
    expect(needsRenewal(cert, at(time))).toBe(expected);
  });

  it('takes another fraction, and refuses one outside (0, 1)', () => {
    const halfway = from + (to - from) / 2;
    expect(needsRenewal(cert, { now: new Date(halfway - 1000), lookaheadFraction: 0.5 })).toBe(false);
    expect(needsRenewal(cert, { now: new Date(halfway + 1000), lookaheadFraction: 0.5 })).toBe(true);
    expect(() => needsRenewal(cert, { lookaheadFraction: 1 })).toThrow('not between 0 and 1');
    expect(() => needsRenewal(cert, { lookaheadFraction: 0 })).toThrow('not between 0 and 1');
  });
});

describe('caBundle', () => {
  const current = newCertificateAuthority({ commonName: 'current' });
  const next = newCertificateAuthority({ commonName: 'next' });
  const expired = newCertificateAuthority({
    commonName: 'expired',
    days: 30,
    now: new Date(Date.now() - 60 * DAY),
  });
  const subjects = (bundle: string) =>
    (bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? []).map(
      (pem) => new X509Certificate(pem).subject,
    );

  it('holds each CA once, in the order given, without expired ones', () => {
    const bundle = caBundle(current.cert, expired.cert, next.cert, current.cert);
    expect(subjects(bundle)).toEqual(['CN=current', 'CN=next']);
    expect(bundle.endsWith('-----END CERTIFICATE-----\n')).toBe(true);
  });

  it('takes bundles as well as single certificates (the bundle in place, and a new CA)', () => {
    const published = caBundle(current.cert, next.cert);
    const third = newCertificateAuthority({ commonName: 'third' });
    expect(subjects(caBundle(published, third.cert))).toEqual(['CN=current', 'CN=next', 'CN=third']);
    expect(caBundle(caBundle(current.cert))).toBe(caBundle(current.cert));
  });

  it('refuses a serving certificate, a text without a certificate, and nothing left', () => {
    const serving = issueServingCertificate(current, NAMES);
    expect(() => caBundle(current.cert, serving.cert)).toThrow('is not a CA');
    expect(() => caBundle('not a certificate')).toThrow('holds no PEM certificate');
    expect(() => caBundle(expired.cert)).toThrow('every CA given has expired');
  });
});
