/** A span per API request a reconcile makes, from the client's report of each answer (KubeClient.onRequest). */
import type { KubeClient } from '../kube/client';
import type { Tracing } from './tracing';

/** `PATCH deployments` from `/apis/apps/v1/namespaces/ns/deployments/web`: the method and the resource. */
export function requestSpanName(method: string, path: string): string {
  const parts = path.split('?')[0].split('/').filter(Boolean);
  // /api/v1/... or /apis/group/version/...; then namespaces/<ns>/ when namespaced.
  let i = parts[0] === 'api' ? 2 : 3;
  if (parts[i] === 'namespaces' && parts.length > i + 2) i += 2;
  const resource = parts.slice(i).filter((_, n) => n % 2 === 0);
  return `${method} ${resource.join('/') || path}`;
}

/**
 * Adds a span for each request (not watches) that `client` answers inside a span, a child of it, beside
 * what `onRequest` did before (the metrics): its method, path, status code, verb and duration.
 */
export function traceRequests(client: KubeClient, tracing: Tracing): void {
  if (!tracing.on) return;
  const before = client.onRequest;
  client.onRequest = (verb, code, seconds, req, error) => {
    before?.(verb, code, seconds, req, error);
    if (verb === 'watch') return;
    tracing.ended(
      requestSpanName(req.method, req.path),
      {
        'http.request.method': req.method,
        'url.path': req.path,
        'http.response.status_code': code,
        'k8s.verb': verb,
        ...(typeof req.query?.dryRun === 'string' ? { 'k8s.dry_run': true } : {}),
      },
      seconds,
      code >= 400 || code === 0 ? error : undefined,
    );
  };
}
