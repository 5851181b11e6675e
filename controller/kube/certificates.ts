/**
 * A small certificate authority for a webhook the API server calls: the API server verifies the
 * webhook's serving certificate against the CA bundle written in the CRD (`caBundle`), so the controller
 * makes a CA, signs its serving certificates with it, renews both before they expire, and publishes every
 * CA still valid, so that during a CA rotation the old and the new one are both trusted. As
 * open-policy-agent/cert-controller does, with ECDSA P-256 keys (x509.ts writes the DER).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import {
  authorityExtensions,
  authorityKeyIdentifier,
  certificatePem,
  distinguishedName,
  issuerFields,
  newKeyPair,
  privateKeyPem,
  servingExtensions,
  signCertificate,
  type ServingCertificate,
} from './x509';

export type { ServingCertificate } from './x509';

/**
 * The Secret of the conversion webhook's CA, in the controller's (the Lease's) namespace: one name whatever
 * the lease's, so that the install's Role can name it (controller/runtime/conversion-webhook.ts).
 */
export const WEBHOOK_CA_SECRET = 'reconstruct-controller-webhook-ca';

/** A CA's key and certificate (PEM) and the validity its certificate states, to the second. */
export interface CertificateAuthority {
  readonly key: string;
  readonly cert: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export interface CertificateAuthorityOptions {
  /** The CA's subject, e.g. `reconstruct-webhook-ca`. */
  readonly commonName: string;
  /**
   * How long the CA is valid. Its serving certificates end with it at the latest.
   * @default 3650 (ten years, as cert-controller's CA)
   */
  readonly days?: number;
  /** @default - the current time */
  readonly now?: Date;
}

export interface IssueOptions {
  /**
   * How long the certificate is valid, cut to the CA's own end.
   * @default 365 (a year, as cert-controller's serving certificates)
   */
  readonly days?: number;
  /** @default - the current time */
  readonly now?: Date;
}

export interface RenewalOptions {
  /** @default - the current time */
  readonly now?: Date;
  /**
   * Renew once less than this fraction of the certificate's lifetime is left.
   * @default 1/3
   */
  readonly lookaheadFraction?: number;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

/**
 * A new self-signed CA: basicConstraints CA (path length 0: it signs serving certificates only),
 * keyCertSign and cRLSign, and a subject key identifier so that a client holding two CAs of the same
 * name (a rotation) finds the one that signed a certificate. Valid from an hour ago, for clocks behind.
 */
export function newCertificateAuthority(options: CertificateAuthorityOptions): CertificateAuthority {
  const now = options.now ?? new Date();
  const { privateKey, publicKey } = newKeyPair();
  const notBefore = toSecond(now.getTime() - HOUR);
  const notAfter = toSecond(now.getTime() + (options.days ?? 3650) * DAY);
  const subject = distinguishedName(options.commonName);
  const certificate = signCertificate({
    subject,
    issuer: subject,
    publicKey,
    signingKey: privateKey,
    notBefore,
    notAfter,
    extensions: authorityExtensions(publicKey),
  });
  return { key: privateKeyPem(privateKey), cert: certificatePem(certificate), notBefore, notAfter };
}

/**
 * A serving certificate for `names` (DNS names and IP addresses; the first is its common name) signed by
 * `ca`: its issuer is the CA's subject, its authorityKeyIdentifier the CA's key identifier; not a CA,
 * for server authentication, valid from an hour before `now` for `days` days, and never past the CA's
 * own end (a chain is not valid longer than its CA, and renewal then follows the CA's end). Throws when
 * the CA is not a CA, its key is not its certificate's, or it has expired.
 */
export function issueServingCertificate(
  ca: { readonly key: string; readonly cert: string },
  names: readonly string[],
  options: IssueOptions = {},
): ServingCertificate {
  if (names.length === 0) throw new Error('issueServingCertificate: at least one name');
  const now = options.now ?? new Date();
  const authority = new X509Certificate(ca.cert);
  const signingKey = createPrivateKey(ca.key);
  if (!authority.ca) throw new Error(`issueServingCertificate: ${authority.subject} is not a CA`);
  if (!authority.checkPrivateKey(signingKey)) {
    throw new Error(`issueServingCertificate: the key given is not the key of ${authority.subject}`);
  }
  if (signingKey.asymmetricKeyType !== 'ec') {
    throw new Error(`issueServingCertificate: the CA's key is ${signingKey.asymmetricKeyType}, not EC`);
  }
  const caEnd = Date.parse(authority.validTo);
  if (caEnd <= now.getTime()) throw new Error(`issueServingCertificate: ${authority.subject} has expired`);

  const { privateKey, publicKey } = newKeyPair();
  const issuer = issuerFields(authority.raw);
  const notAfter = toSecond(Math.min(now.getTime() + (options.days ?? 365) * DAY, caEnd));
  const certificate = signCertificate({
    subject: distinguishedName(names[0]),
    issuer: issuer.subject,
    publicKey,
    signingKey,
    notBefore: toSecond(now.getTime() - HOUR),
    notAfter,
    extensions: [
      ...servingExtensions(names),
      ...(issuer.subjectKeyIdentifier ? [authorityKeyIdentifier(issuer.subjectKeyIdentifier)] : []),
    ],
  });
  return { key: privateKeyPem(privateKey), cert: certificatePem(certificate), notAfter };
}

/**
 * Whether a certificate (a CA's or a serving one) should be replaced now: it is not valid yet, it has
 * expired, or less than `lookaheadFraction` of its lifetime is left. The rule is a fraction of the
 * lifetime, cert-manager's default (renew at two thirds), rather than cert-controller's fixed 90 days
 * ahead: a fraction works for any lifetime (a fixed lookahead renews a 60-day certificate at every
 * check), and a third of a year leaves months for a failed renewal to be retried and for every replica
 * and the API server to pick up a new CA before the old one ends.
 */
export function needsRenewal(certPem: string, options: RenewalOptions = {}): boolean {
  const fraction = options.lookaheadFraction ?? 1 / 3;
  if (!(fraction > 0 && fraction < 1)) {
    throw new Error(`needsRenewal: lookaheadFraction ${fraction} is not between 0 and 1`);
  }
  const certificate = new X509Certificate(certPem);
  const from = Date.parse(certificate.validFrom);
  const to = Date.parse(certificate.validTo);
  const now = (options.now ?? new Date()).getTime();
  const notValidNow = now < from || now >= to;
  return notValidNow || to - now < (to - from) * fraction;
}

/**
 * The CA bundle for a CRD's `spec.conversion.webhook.clientConfig.caBundle` (the caller base64-encodes
 * it): every certificate of the PEM texts given (each may hold several), once each, in the order given,
 * without those that have expired. Publishing the old CA beside the new one keeps the webhook trusted
 * while replicas still serve a certificate of the old one. Throws for a certificate that is not a CA (a
 * serving certificate in a bundle is a mistake) and when no CA is left.
 */
export function caBundle(...caPems: string[]): string {
  const now = Date.now();
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const pem of caPems) {
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
    if (!blocks) throw new Error('caBundle: a text given holds no PEM certificate');
    for (const block of blocks) {
      const certificate = new X509Certificate(block);
      if (!certificate.ca) throw new Error(`caBundle: ${certificate.subject} is not a CA`);
      const expired = Date.parse(certificate.validTo) <= now;
      if (expired || seen.has(certificate.fingerprint256)) continue;
      seen.add(certificate.fingerprint256);
      kept.push(certificatePem(certificate.raw));
    }
  }
  if (kept.length === 0) throw new Error('caBundle: every CA given has expired');
  return kept.join('');
}

/** A time cut to the whole second, as a certificate states it. */
const toSecond = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);
