/**
 * A self-signed serving certificate made in memory at start, as controller-runtime's metrics server makes
 * one when no certificate is given: an ECDSA P-256 key and an X.509 v3 certificate for the names given,
 * valid for a year. The DER is written by x509.ts; node's own `X509Certificate` checks the result in the
 * tests. A webhook the API server calls needs a CA it can trust instead: certificates.ts.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  certificatePem,
  distinguishedName,
  newKeyPair,
  privateKeyPem,
  servingExtensions,
  signCertificate,
  type ServingCertificate,
} from './x509';

export type { ServingCertificate } from './x509';

/**
 * A self-signed certificate for `names` (DNS names and IP addresses; the first is its common name), a
 * server's: not a CA, for server authentication, valid from an hour ago for `days` days.
 */
export function selfSignedCertificate(
  names: readonly string[],
  days = 365,
  now = new Date(),
): ServingCertificate {
  if (names.length === 0) throw new Error('selfSignedCertificate: at least one name');
  const { privateKey, publicKey } = newKeyPair();
  const notAfter = new Date(now.getTime() + days * 86_400_000);
  const subject = distinguishedName(names[0]);
  const certificate = signCertificate({
    subject,
    issuer: subject,
    publicKey,
    signingKey: privateKey,
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter,
    extensions: servingExtensions(names),
  });
  return { key: privateKeyPem(privateKey), cert: certificatePem(certificate), notAfter };
}

/** The metrics server's key and certificate: from `dir` (tls.key, tls.crt), else self-signed now. */
export function metricsCertificate(dir: string | undefined): { key: string; cert: string } {
  if (dir)
    return {
      key: readFileSync(join(dir, 'tls.key'), 'utf8'),
      cert: readFileSync(join(dir, 'tls.crt'), 'utf8'),
    };
  return selfSignedCertificate([hostname(), 'localhost', '127.0.0.1']);
}
