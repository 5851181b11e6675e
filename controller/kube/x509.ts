/**
 * X.509 v3 certificates with ECDSA P-256 keys, written as DER. Node signs (`crypto.sign`) and parses
 * (`X509Certificate`) certificates but cannot build one, so the few ASN.1 structures a serving
 * certificate and a small CA need are written here, and read back where node's parser does not expose
 * them (a certificate's subject as DER, its subject key identifier). docs/DESIGN.md, "A self-signed
 * certificate without a library", says why not @peculiar/x509 or node-forge.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

/** A key and the certificate for it, as `tls.createServer` takes them. */
export interface ServingCertificate {
  /** PEM, for `tls.createServer`. */
  readonly key: string;
  readonly cert: string;
  readonly notAfter: Date;
}

/** What a certificate says, signed by `signingKey` (the issuer's; the subject's own when self-signed). */
export interface CertificateFields {
  /** DER Names, from `distinguishedName` or read from the issuer's certificate. */
  readonly subject: Buffer;
  readonly issuer: Buffer;
  readonly publicKey: KeyObject;
  readonly signingKey: KeyObject;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** DER Extensions, from the builders below. */
  readonly extensions: readonly Buffer[];
}

/** A fresh ECDSA P-256 key pair. */
export function newKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

/** The certificate, DER, signed with ecdsa-with-SHA256 and a random positive serial number. */
export function signCertificate(fields: CertificateFields): Buffer {
  const serial = randomBytes(16);
  // Positive, and its first byte not zero: Go's parser (the API server's) refuses a non-minimal INTEGER.
  serial[0] = (serial[0] & 0x7f) | 0x40;
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ECDSA_WITH_SHA256,
    fields.issuer,
    seq(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, seq(...fields.extensions)),
  );
  const signature = sign('sha256', tbs, { key: fields.signingKey, dsaEncoding: 'der' });
  return seq(tbs, ECDSA_WITH_SHA256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
}

/** A Name holding one common name. */
export const distinguishedName = (commonName: string) =>
  seq(set(seq(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')))));

/**
 * What a server certificate for `names` holds: the names, not a CA, a key for signatures, for server
 * authentication.
 */
export function servingExtensions(names: readonly string[]): Buffer[] {
  return [
    subjectAltName(names),
    extension('2.5.29.19', true, seq()), // basicConstraints: not a CA
    keyUsage([DIGITAL_SIGNATURE]),
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
  ];
}

/** What a CA that signs serving certificates (and nothing below them) holds. */
export function authorityExtensions(publicKey: KeyObject): Buffer[] {
  const pathLenZero = integer(Buffer.from([0]));
  return [
    extension('2.5.29.19', true, seq(der(0x01, Buffer.from([0xff])), pathLenZero)), // basicConstraints: CA
    keyUsage([DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN]),
    extension('2.5.29.14', false, der(0x04, keyIdentifier(publicKey))), // subjectKeyIdentifier
  ];
}

/** The authorityKeyIdentifier: which of its issuer's keys signed a certificate (a CA's own SKI). */
export const authorityKeyIdentifier = (keyId: Buffer) => extension('2.5.29.35', false, seq(der(0x80, keyId))); // [0] keyIdentifier

/** A key identifier as RFC 5280 4.2.1.2 (1) makes it: SHA-1 of the subjectPublicKey's bits. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const [spki] = children(publicKey.export({ type: 'spki', format: 'der' }));
  const [, bits] = children(spki.content);
  return createHash('sha1').update(bits.content.subarray(1)).digest(); // past the unused-bits byte
}

/** An issuer's subject Name (DER) and subject key identifier, which certificates it signs repeat. */
export function issuerFields(certificate: Buffer): { subject: Buffer; subjectKeyIdentifier?: Buffer } {
  const [whole] = children(certificate);
  const [tbs] = children(whole.content);
  const fields = children(tbs.content);
  const at = fields[0].tag === 0xa0 ? 1 : 0; // the version is optional (v1 has none)
  return { subject: fields[at + 4].whole, subjectKeyIdentifier: subjectKeyIdentifier(fields) };
}

/** The key identifier in a certificate's extensions ([3] Extensions), if it has one. */
function subjectKeyIdentifier(tbsFields: readonly Element[]): Buffer | undefined {
  const extensions = tbsFields.find((f) => f.tag === 0xa3);
  if (!extensions) return undefined;
  const ski = oid('2.5.29.14');
  for (const e of children(children(extensions.content)[0].content)) {
    const parts = children(e.content); // extnID, critical (optional), extnValue
    if (!parts[0].whole.equals(ski)) continue;
    return children(parts[parts.length - 1].content)[0].content; // extnValue holds an OCTET STRING
  }
  return undefined;
}

export const privateKeyPem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

export function certificatePem(bytes: Buffer): string {
  const lines = bytes.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

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
  return extension('2.5.29.17', false, seq(...general));
}

const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

/** keyUsage, critical: a BIT STRING of the named bits, without trailing zero bits (DER). */
function keyUsage(bits: readonly number[]): Buffer {
  const last = Math.max(...bits);
  const bytes = Buffer.alloc((last >> 3) + 1);
  for (const bit of bits) bytes[bit >> 3] |= 0x80 >> (bit & 7);
  return extension('2.5.29.15', true, der(0x03, Buffer.concat([Buffer.from([7 - (last & 7)]), bytes])));
}

/** An Extension: its OID, critical when it is, and its value's DER in an OCTET STRING. */
function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? seq(oid(id), der(0x01, Buffer.from([0xff])), der(0x04, value))
    : seq(oid(id), der(0x04, value));
}

const ECDSA_WITH_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

/** DER: a tag, its length (short form, or long form in as many bytes as it takes), its content. */
function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const lengthBytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) lengthBytes.unshift(v & 0xff);
  const length = n < 0x80 ? [n] : [0x80 | lengthBytes.length, ...lengthBytes];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}
function seq(...items: Buffer[]): Buffer {
  return der(0x30, Buffer.concat(items));
}
function set(...items: Buffer[]): Buffer {
  return der(0x31, Buffer.concat(items));
}

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
function integer(bytes: Buffer): Buffer {
  return der(0x02, bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

/** A validity time as RFC 5280 4.1.2.5 wants it: UTCTime before 2050, GeneralizedTime from then. */
function time(at: Date): Buffer {
  const digits = at.toISOString().slice(0, 19).replace(/[-T:]/g, '');
  return at.getUTCFullYear() < 2050
    ? der(0x17, Buffer.from(`${digits.slice(2)}Z`))
    : der(0x18, Buffer.from(`${digits}Z`));
}

/** One DER element read back: its tag, its content, and the whole element (tag and length included). */
interface Element {
  readonly tag: number;
  readonly content: Buffer;
  readonly whole: Buffer;
}

/** The elements `bytes` holds one after another (a constructed element's content). */
function children(bytes: Buffer): Element[] {
  const out: Element[] = [];
  for (let at = 0; at < bytes.length;) {
    const tag = bytes[at];
    let length = bytes[at + 1];
    let start = at + 2;
    if (length & 0x80) {
      const count = length & 0x7f;
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + bytes[start++];
    }
    if (start + length > bytes.length) throw new Error('certificate: truncated DER');
    out.push({
      tag,
      content: bytes.subarray(start, start + length),
      whole: bytes.subarray(at, start + length),
    });
    at = start + length;
  }
  return out;
}
