/**
 * A self-signed serving certificate made in memory at start, as controller-runtime's metrics server makes
 * one when no certificate is given: an ECDSA P-256 key and an X.509 v3 certificate for the names given,
 * valid for a year. Node can sign and parse certificates but not build one, so the DER is written here
 * (docs/DESIGN.md, "A self-signed certificate without a library", says why not @peculiar/x509 or
 * node-forge); node's own `X509Certificate` checks the result in the tests.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

/** DER: a tag, its length, its content. */
function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

/** A positive INTEGER from big-endian bytes (a leading 0 when the top bit is set). */
const integer = (bytes: Buffer) =>
  der(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
const utf8 = (text: string) => der(0x0c, Buffer.from(text, 'utf8'));
/** UTCTime, as RFC 5280 wants for dates before 2050: YYMMDDHHMMSSZ. */
const utcTime = (at: Date) =>
  der(0x17, Buffer.from(`${at.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`));
const name = (commonName: string) => seq(set(seq(oid('2.5.4.3'), utf8(commonName))));

const ECDSA_WITH_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

/** The subjectAltName: DNS names, and IP addresses (4 or 16 bytes). */
function subjectAltName(names: readonly string[]): Buffer {
  const general = names.map((n) => {
    const family = isIP(n);
    if (family === 0) return der(0x82, Buffer.from(n, 'ascii')); // [2] dNSName
    const bytes =
      family === 4
        ? Buffer.from(n.split('.').map(Number))
        : Buffer.from(
            n
              .replace('::', `:${'0:'.repeat(8 - n.split(':').filter(Boolean).length)}`)
              .split(':')
              .filter(Boolean)
              .flatMap((h) => [parseInt(h, 16) >> 8, parseInt(h, 16) & 0xff]),
          );
    return der(0x87, bytes); // [7] iPAddress
  });
  return seq(oid('2.5.29.17'), der(0x04, seq(...general)));
}

export interface ServingCertificate {
  /** PEM, for `tls.createServer`. */
  readonly key: string;
  readonly cert: string;
  readonly notAfter: Date;
}

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
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const notBefore = new Date(now.getTime() - 3_600_000);
  const notAfter = new Date(now.getTime() + days * 86_400_000);
  const subject = name(names[0]);
  const extensions = der(
    0xa3,
    seq(
      subjectAltName(names),
      seq(oid('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, seq())), // basicConstraints: critical, not a CA
      seq(oid('2.5.29.15'), der(0x01, Buffer.from([0xff])), der(0x04, der(0x03, Buffer.from([0x07, 0x80])))), // keyUsage: digitalSignature
      seq(oid('2.5.29.37'), der(0x04, seq(oid('1.3.6.1.5.5.7.3.1')))), // extKeyUsage: serverAuth
    ),
  );
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ECDSA_WITH_SHA256,
    subject,
    seq(utcTime(notBefore), utcTime(notAfter)),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const certificate = seq(tbs, ECDSA_WITH_SHA256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  return { key: pem('PRIVATE KEY', privateKey), cert: pemOf('CERTIFICATE', certificate), notAfter };
}

const pem = (_label: string, key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

function pemOf(label: string, bytes: Buffer): string {
  const lines = bytes.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
