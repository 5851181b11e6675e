/**
 * The conversion webhook of a controller's settings: served by the serving thread when it has the kinds'
 * modules (thread.ts), else on the main thread; its certificates and the CRDs it points at are the main
 * thread's work (controller/runtime/conversion-webhook.ts).
 */
import type { KindRegistry } from '../../constructs/kit';
import { WEBHOOK_CA_SECRET } from '../kube/certificates';
import type { KubeClient } from '../kube/client';
import type { Logger } from '../log';
import { ConversionWebhook, versionedKinds, type WebhookClientConfig } from '../runtime/conversion-webhook';
import type { Metrics } from '../runtime/metrics';
import type { Certificate } from './messages';
import type { ServingThread } from './thread';

/** The settings of the webhook (ControllerSettings' webhook fields; see there). */
interface WebhookSettings {
  readonly webhookAddr: string;
  readonly webhookService?: string;
  readonly webhookUrl?: string;
  readonly webhookCertDays?: number;
  readonly webhookCertDir?: string;
  readonly webhookCheckMs?: number;
  /** Where the CA Secret is kept. */
  readonly leaseNamespace: string;
}

/** The conversion webhook, when a kind has several versions and it is not turned off. */
export async function startConversionWebhook(
  client: KubeClient,
  kinds: KindRegistry,
  settings: WebhookSettings,
  log: Logger,
  metrics: Metrics,
  serving: ServingThread,
): Promise<ConversionWebhook | undefined> {
  if (settings.webhookAddr === '0' || versionedKinds(kinds).length === 0) return undefined;
  const webhook = new ConversionWebhook({
    client,
    kinds,
    address: settings.webhookAddr,
    clientConfig: webhookClientConfig(settings),
    secret: { namespace: settings.leaseNamespace, name: WEBHOOK_CA_SECRET },
    ...(settings.webhookCertDays !== undefined ? { servingDays: settings.webhookCertDays } : {}),
    ...(settings.webhookCheckMs !== undefined ? { checkMs: settings.webhookCheckMs } : {}),
    ...(settings.webhookCertDir !== undefined ? { certDir: settings.webhookCertDir } : {}),
    log,
    observe: (seconds, code) => metrics.webhookRequest('/convert', code, seconds),
    ...(serving.converts
      ? {
          serve: (address: string, certificate: Certificate) =>
            serving.serveConversions(address, certificate),
        }
      : {}),
  });
  await webhook.start();
  return webhook;
}

/** Where the API server calls the webhook (see ControllerSettings.webhookService). */
function webhookClientConfig(settings: WebhookSettings): WebhookClientConfig {
  if (settings.webhookService) {
    const m = /^([^/]+)\/([^/:]+)(?::(\d+))?$/.exec(settings.webhookService);
    if (!m) throw new Error(`webhook service "${settings.webhookService}" is not NAMESPACE/NAME[:PORT]`);
    return { service: { namespace: m[1], name: m[2], port: Number(m[3] ?? 443), path: '/convert' } };
  }
  return { url: settings.webhookUrl ?? 'https://127.0.0.1:{port}/convert' };
}
