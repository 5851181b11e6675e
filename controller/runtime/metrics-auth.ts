/**
 * Who may scrape /metrics, as controller-runtime's `WithAuthenticationAndAuthorization` filter decides it
 * (kubebuilder scaffolds it since 0.16): the scrape's bearer token is checked with a TokenReview, and its
 * user may `get` the non-resource URL `/metrics` by a SubjectAccessReview (the install's
 * `<name>-metrics-reader` ClusterRole grants it; bind it to Prometheus's ServiceAccount). Decisions are
 * cached a minute per token, so a scrape every 30 s costs two API calls a minute at most.
 */
import { createHash } from 'node:crypto';
import type { KubeClient } from '../kube/client';

export interface ScrapeDecision {
  /** 200 to serve, 401 without a valid token, 403 for a user who may not read /metrics. */
  readonly code: 200 | 401 | 403;
  readonly message: string;
}

interface TokenReview {
  status?: {
    authenticated?: boolean;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    error?: string;
  };
}
interface SubjectAccessReview {
  status?: { allowed?: boolean; reason?: string };
}

const CACHE_MS = 60_000;
const CACHE_MAX = 256;

export class MetricsAuthorizer {
  private readonly decisions = new Map<string, { at: number; decision: ScrapeDecision }>();

  constructor(
    private readonly client: Pick<KubeClient, 'request'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The decision for a request with this `Authorization` header. */
  async decide(authorization: string | undefined): Promise<ScrapeDecision> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return { code: 401, message: 'Unauthorized: a bearer token is required\n' };
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.decisions.get(key);
    if (cached && this.now() - cached.at < CACHE_MS) return cached.decision;
    const decision = await this.review(token);
    if (this.decisions.size >= CACHE_MAX) this.decisions.delete(this.decisions.keys().next().value!);
    this.decisions.set(key, { at: this.now(), decision });
    return decision;
  }

  private async review(token: string): Promise<ScrapeDecision> {
    const review = await this.client.request<TokenReview>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    const user = review.status?.user;
    if (!review.status?.authenticated || !user?.username) {
      return { code: 401, message: 'Unauthorized: the token is not valid\n' };
    }
    const access = await this.client.request<SubjectAccessReview>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          groups: user.groups ?? [],
          ...(user.extra ? { extra: user.extra } : {}),
          nonResourceAttributes: { path: '/metrics', verb: 'get' },
        },
      },
    });
    return access.status?.allowed
      ? { code: 200, message: '' }
      : { code: 403, message: `Forbidden: ${user.username} may not get /metrics\n` };
  }
}
