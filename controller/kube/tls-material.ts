/**
 * The TLS material of a kubeconfig as the connections use it: made into one secure context, and a
 * fingerprint to tell when rotated credentials brought new material (./http makes new connections then).
 */
import type * as https from 'node:https';
import * as tls from 'node:tls';

/**
 * The CA, certificate and key as one secure context, made once. Given as they are, an https.Agent copies
 * them into every request's options and builds its pool key from them (several KB of base64 turned into a
 * string per request): 13% of a request's CPU. With a context, the key is the host and port.
 */
export function withSecureContext(tlsOptions: https.AgentOptions): https.AgentOptions {
  const { ca, cert, key, pfx, passphrase, ...rest } = tlsOptions;
  if (ca === undefined && cert === undefined && key === undefined && pfx === undefined) return rest;
  return { ...rest, secureContext: tls.createSecureContext({ ca, cert, key, pfx, passphrase }) };
}

export function tlsFingerprint(options: https.AgentOptions): string {
  const part = (v: unknown): string =>
    Buffer.isBuffer(v)
      ? v.toString('base64')
      : Array.isArray(v)
        ? v.map(part).join(',')
        : (JSON.stringify(v) ?? '');
  return [
    options.ca,
    options.cert,
    options.key,
    options.pfx,
    options.passphrase,
    options.rejectUnauthorized,
    options.servername,
  ]
    .map(part)
    .join('|');
}
