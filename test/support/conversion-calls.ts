/**
 * Requests to a ConversionServer as the API server makes them (conversion-server.test.ts): over HTTPS to
 * 127.0.0.1 as `localhost`, with serving certificates from two CAs (a rotation's), a converter of a
 * two-version Widget, and ConversionReviews of it.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { issueServingCertificate, newCertificateAuthority } from '../../controller/kube/certificates';
import type { Convert } from '../../controller/runtime/conversion-server';

const NAMES = ['localhost', '127.0.0.1'];
export const caA = newCertificateAuthority({ commonName: 'webhook-ca' });
export const caB = newCertificateAuthority({ commonName: 'webhook-ca' }); // the rotation's: same name, new key
export const servingA = issueServingCertificate(caA, NAMES);
export const servingB = issueServingCertificate(caB, NAMES);

/** v1 says `spec.size` (a string), v2 `spec.replicas` (a number); size "broken" cannot convert. */
export const convertWidget: Convert = (object, desired) => {
  const spec = object.spec as { size?: string; replicas?: number };
  if (spec.size === 'broken') throw new Error('spec.size "broken" is not a number');
  return desired === 'example.com/v2'
    ? { ...object, apiVersion: desired, spec: { replicas: Number(spec.size) } }
    : { ...object, apiVersion: desired, spec: { size: String(spec.replicas) } };
};

export const widget = (apiVersion: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion,
  kind: 'Widget',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', generation: 2 },
  spec,
});
export const review = (desiredAPIVersion: string, objects: unknown[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: { uid: 'review-1', desiredAPIVersion, objects },
});

/** A ConversionReview answered, or a Status. */
interface Answer {
  response?: {
    uid: string;
    result: { status: string; message?: string };
    convertedObjects?: Array<{ spec?: unknown }>;
  };
  reason?: string;
  message?: string;
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Answer;
  reusedSocket: boolean;
}

interface Call {
  method?: string;
  path?: string;
  body?: unknown;
  ca?: string;
  agent?: https.Agent;
  headers?: http.OutgoingHttpHeaders;
  /** Writes and ends the body itself, instead of `body`. */
  write?: (req: http.ClientRequest) => void;
}

/** One HTTPS request to 127.0.0.1 as `localhost`, trusting `ca` only; the body JSON unless a string. */
export function call(port: number, c: Call = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        method: c.method ?? 'POST',
        path: c.path ?? '/convert',
        ca: c.ca ?? caA.cert,
        agent: c.agent ?? new https.Agent(),
        headers: { 'Content-Type': 'application/json', ...c.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: (text ? JSON.parse(text) : {}) as Answer,
            reusedSocket: req.reusedSocket,
          }),
        );
      },
    );
    req.on('error', reject);
    if (c.write) return c.write(req);
    req.end(typeof c.body === 'string' ? c.body : c.body === undefined ? undefined : JSON.stringify(c.body));
  });
}
