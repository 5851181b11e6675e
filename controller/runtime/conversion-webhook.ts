/**
 * The conversion webhook of the kinds with several versions, as the controller serves it: every replica
 * serves conversions (not only the leader: the API server's reads of an old version must not wait for an
 * election), with a serving certificate issued from one CA the replicas share through a Secret, and keeps
 * the CRDs' `spec.conversion.webhook.clientConfig` (where to call, and the caBundle to trust) right.
 *
 * Rotation, as open-policy-agent/cert-controller does it, with the order that never breaks a read:
 * - the serving certificate is re-issued from the CA once a third of its life is left (a replica's own);
 * - the CA is replaced once a third of its life is left: the new one goes into the Secret with the old one
 *   kept as `ca-previous.crt`; every replica, on seeing it, first puts both in the CRDs' caBundle, then
 *   serves a certificate of the new CA. The old CA leaves the bundle once it has expired.
 * Each replica looks at the Secret and its certificate every `checkMs`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { CustomResourceDefinition, Kind, KindRegistry } from '../../constructs/kit';
import { CUSTOM_RESOURCE_DEFINITION, SECRET } from '../../constructs/kit/api-kind';
import {
  caBundle,
  issueServingCertificate,
  needsRenewal,
  newCertificateAuthority,
  type CertificateAuthority,
} from '../kube/certificates';
import type { KubeClient } from '../kube/client';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors';
import { resourcePath } from '../kube/paths';
import type { Logger } from '../log';
import { ConversionServer, registryConvert, type ConversionEndpoint } from './conversion-server';
import { hostOf } from './server';

/** Where the API server calls: a Service in front of the replicas (installed), or a URL (a local run). */
export type WebhookClientConfig =
  { service: { namespace: string; name: string; port: number; path: string } } | { url: string };

export interface ConversionWebhookOptions {
  readonly client: KubeClient;
  readonly kinds: KindRegistry;
  /** `host:port` to serve on. */
  readonly address: string;
  /** Where the API server calls; a URL may say `{port}` for the port bound (with port 0). */
  readonly clientConfig: WebhookClientConfig;
  /** The Secret holding the shared CA: namespace and name. */
  readonly secret: { readonly namespace: string; readonly name: string };
  /** How long a serving certificate is valid, in days. @default 90 */
  readonly servingDays?: number;
  /** How long the CA is valid, in days. @default 3650 */
  readonly caDays?: number;
  /**
   * A folder with the serving certificate someone else issues and rotates (`tls.crt`, `tls.key`: a
   * cert-manager Secret, mounted): then the webhook only serves, re-reading the files at each check, and
   * leaves the CA and the CRDs' caBundle to them (cert-manager's cainjector).
   */
  readonly certDir?: string;
  /** How often the Secret and the certificate are looked at. @default 60 s */
  readonly checkMs?: number;
  readonly log: Logger;
  /** A conversion's duration and HTTP status (the webhook latency histogram). */
  readonly observe?: (seconds: number, httpStatus: number) => void;
  /**
   * What serves the conversions once the certificate is there (the serving thread's, controller/serving).
   * @default - a ConversionServer on this thread
   */
  readonly serve?: (
    address: string,
    certificate: { key: string; cert: string },
  ) => Promise<ConversionEndpoint>;
}

interface CaSecret {
  metadata: { resourceVersion?: string };
  data?: Record<string, string>;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string | undefined) => (text ? Buffer.from(text, 'base64').toString('utf8') : undefined);

/** The kinds whose CRD has several versions: what the webhook converts. */
export function versionedKinds(kinds: KindRegistry): Kind[] {
  return kinds.kinds.filter((k) => k.versions.length > 1);
}

export class ConversionWebhook {
  private server?: ConversionEndpoint;
  private ca?: CertificateAuthority & { previous?: string };
  private serving?: { key: string; cert: string };
  private timer?: NodeJS.Timeout;
  /** The last failure said, so that a retry failing the same way says nothing new. */
  private failing?: string;

  constructor(private readonly options: ConversionWebhookOptions) {}

  /**
   * Loads (or makes) the CA, serves, and points the CRDs at this webhook. What it cannot do yet (the CA
   * Secret forbidden, the API server away) is said once and tried again at every check: the controller
   * goes on without it, as with a missing CRD; only the versions but the stored one wait for it.
   */
  async start(): Promise<void> {
    this.timer = setInterval(() => void this.check(), this.options.checkMs ?? 60_000);
    this.timer.unref();
    await this.check();
  }

  /** The CA, a serving certificate and the server, once. */
  private async serve(): Promise<void> {
    if (this.options.certDir) {
      this.serving = certificateIn(this.options.certDir);
    } else {
      await this.loadCa();
      this.issue();
    }
    const server = await (
      this.options.serve ?? ((address, certificate) => this.serveHere(address, certificate))
    )(this.options.address, this.serving!);
    this.server = server;
    this.options.log.info('serving conversions', {
      address: `${hostOf(this.options.address)}:${this.port}`,
      kinds: versionedKinds(this.options.kinds).map((k) => k.kind),
    });
  }

  /** A ConversionServer on this thread. */
  private async serveHere(
    address: string,
    certificate: { key: string; cert: string },
  ): Promise<ConversionEndpoint> {
    const server = new ConversionServer({
      address,
      certificate,
      convert: registryConvert(this.options.kinds),
      log: this.options.log,
      observe: this.options.observe,
    });
    await server.start();
    return server;
  }

  /** The port served on. */
  get port(): number {
    return this.server?.port ?? 0;
  }

  /**
   * Stops serving. A run that pointed the CRDs at a URL of its own (a local run: the URL names the port it
   * bound) points those still at it back at the Service their YAML names, so that a later `kubectl apply`
   * of the install does not meet a URL it never set (the API server refuses a clientConfig with both).
   * A URL given whole (`--webhook-url` without `{port}`: a balancer or tunnel in front of several runs) is
   * the user's, and one another run points at now is that run's: both are left alone.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    const served = this.server !== undefined;
    const port = this.port;
    await this.server?.stop();
    const { clientConfig, certDir, client, log } = this.options;
    if ('service' in clientConfig || !clientConfig.url.includes('{port}') || certDir || !served) return;
    const url = clientConfig.url.replace('{port}', String(port));
    for (const kind of versionedKinds(this.options.kinds)) {
      const service = kind.crd.spec.conversion?.webhook?.clientConfig?.service;
      if (!service) continue;
      const path = resourcePath(CUSTOM_RESOURCE_DEFINITION, undefined, kind.crd.metadata.name);
      try {
        const crd = await client.request<CustomResourceDefinition>({ method: 'GET', path, timeoutMs: 2000 });
        if (crd.spec.conversion?.webhook?.clientConfig?.url !== url) continue;
        await client.request({
          method: 'PATCH',
          path,
          body: { spec: { conversion: { webhook: { clientConfig: { url: null, service } } } } },
          timeoutMs: 2000,
        });
      } catch (err) {
        log.warn('could not point the CRD back at its Service', {
          crd: kind.crd.metadata.name,
          error: (err as Error).message,
        });
      }
    }
  }

  /**
   * What is due: serving at all (until it could), then a new CA, another replica's new CA, or a new serving
   * certificate, and the CRDs pointed at the webhook with the CA to trust.
   */
  async check(): Promise<void> {
    const { log } = this.options;
    try {
      if (!this.server) {
        await this.serve();
      } else if (this.options.certDir) {
        const files = certificateIn(this.options.certDir);
        if (files.cert !== this.serving!.cert || files.key !== this.serving!.key) {
          this.serving = files;
          this.server.setCertificate(files);
          log.info('took up the conversion webhook certificate from its folder', {
            dir: this.options.certDir,
          });
        }
      } else {
        const before = this.ca?.cert;
        await this.loadCa();
        const caChanged = this.ca?.cert !== before;
        // Trust the new CA before serving with it.
        if (caChanged) await this.updateCrds();
        if (caChanged || needsRenewal(this.serving!.cert)) {
          this.issue();
          this.server.setCertificate(this.serving!);
          log.info('rotated the conversion webhook certificate', { newCa: caChanged });
        }
      }
      // An expired previous CA leaves the bundle; a CRD re-applied from its YAML, or installed only now,
      // gets its clientConfig. (With a certificate folder, cert-manager's cainjector does that.)
      if (!this.options.certDir) await this.updateCrds();
      this.failing = undefined;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.failing) {
        log.warn('conversion webhook: cannot serve or rotate yet; trying again at the next check', {
          error: message,
          serving: this.server !== undefined,
        });
      }
      this.failing = message;
    }
  }

  private issue(): void {
    const host = hostOf(this.options.address);
    const names = new Set<string>();
    if ('service' in this.options.clientConfig) {
      const { name, namespace } = this.options.clientConfig.service;
      names.add(`${name}.${namespace}.svc`).add(`${name}.${namespace}.svc.cluster.local`);
    } else {
      names.add(new URL(this.options.clientConfig.url.replace('{port}', '1')).hostname);
    }
    names.add('localhost').add('127.0.0.1');
    if (host && host !== '0.0.0.0' && host !== '::' && host !== '[::]')
      names.add(host.replace(/^\[|\]$/g, ''));
    this.serving = issueServingCertificate(this.ca!, [...names], { days: this.options.servingDays ?? 90 });
  }

  /** The shared CA from the Secret; made, or replaced when due, by whichever replica gets there first. */
  private async loadCa(): Promise<void> {
    const { client, secret } = this.options;
    const path = resourcePath(SECRET, secret.namespace, secret.name);
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: CaSecret | undefined;
      try {
        current = await client.request<CaSecret>({ method: 'GET', path });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const cert = unb64(current?.data?.['ca.crt']);
      const key = unb64(current?.data?.['ca.key']);
      if (cert && key && !needsRenewal(cert)) {
        const previous = unb64(current?.data?.['ca-previous.crt']);
        this.ca = { ...this.ca!, key, cert, ...(previous ? { previous } : {}) };
        return;
      }
      const next = newCertificateAuthority({
        commonName: `${secret.name}.${secret.namespace}`,
        days: this.options.caDays ?? 3650,
      });
      const data: Record<string, string> = { 'ca.crt': b64(next.cert), 'ca.key': b64(next.key) };
      if (cert) data['ca-previous.crt'] = b64(cert);
      const body = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: secret.name,
          namespace: secret.namespace,
          labels: { 'app.kubernetes.io/managed-by': 'reconstruct' },
          ...(current ? { resourceVersion: current.metadata.resourceVersion } : {}),
        },
        type: 'Opaque',
        data,
      };
      try {
        if (current) await client.request({ method: 'PUT', path, body });
        else await client.request({ method: 'POST', path: resourcePath(SECRET, secret.namespace), body });
        this.options.log.info(
          current ? 'rotated the conversion webhook CA' : 'made the conversion webhook CA',
          {
            secret: `${secret.namespace}/${secret.name}`,
          },
        );
        this.ca = { ...next, ...(cert ? { previous: cert } : {}) };
        return;
      } catch (err) {
        // Another replica wrote it first: take theirs.
        if (!isConflict(err) && !isAlreadyExists(err)) throw err;
      }
    }
    throw new Error(`the conversion webhook CA Secret ${secret.namespace}/${secret.name} keeps changing`);
  }

  /**
   * Points each versioned kind's CRD at this webhook, trusting the CA (and the previous one, while valid):
   * a patch of the CRDs whose conversion says otherwise (a CRD re-applied from its YAML, a new CA).
   */
  private async updateCrds(): Promise<void> {
    const { client } = this.options;
    const bundle = b64(caBundle(...[this.ca!.cert, this.ca!.previous].filter((c): c is string => !!c)));
    const clientConfig =
      'service' in this.options.clientConfig
        ? { service: this.options.clientConfig.service, caBundle: bundle }
        : { url: this.options.clientConfig.url.replace('{port}', String(this.port)), caBundle: bundle };
    for (const kind of versionedKinds(this.options.kinds)) {
      const path = resourcePath(CUSTOM_RESOURCE_DEFINITION, undefined, kind.crd.metadata.name);
      let crd: { spec?: { conversion?: { webhook?: { clientConfig?: unknown } } } };
      try {
        crd = await client.request({ method: 'GET', path });
      } catch (err) {
        if (isNotFound(err)) continue; // not installed yet: the next check points it here
        throw err;
      }
      if (isDeepStrictEqual(crd.spec?.conversion?.webhook?.clientConfig, clientConfig)) continue;
      await client.request({
        method: 'PATCH',
        path,
        // A merge patch of the conversion alone: the rest of the CRD is its installer's.
        body: {
          spec: {
            conversion: {
              strategy: 'Webhook',
              webhook: {
                conversionReviewVersions: ['v1'],
                clientConfig: { service: null, url: null, ...clientConfig },
              },
            },
          },
        },
      });
      this.options.log.info('pointed the CRD at the conversion webhook', { crd: kind.crd.metadata.name });
    }
  }
}

/** The serving key and certificate of a folder (a mounted Secret's `tls.key` and `tls.crt`). */
function certificateIn(dir: string): { key: string; cert: string } {
  return {
    key: readFileSync(join(dir, 'tls.key'), 'utf8'),
    cert: readFileSync(join(dir, 'tls.crt'), 'utf8'),
  };
}
