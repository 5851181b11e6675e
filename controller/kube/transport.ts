/**
 * What a client needs to reach an API server: where, with which TLS material and credentials. Its own
 * module, so that the kubeconfig reader (which makes one) and the client (which uses one) do not import
 * each other.
 */
import type * as https from 'node:https';

/** The kubeconfig's server, TLS material and credentials, as createClient needs them. */
export interface Transport {
  /** Base URL, e.g. https://127.0.0.1:6443 (a path prefix is kept). */
  server: string;
  /** TLS options for the agents (ca, cert, key, rejectUnauthorized, servername). */
  tls?: https.AgentOptions;
  /**
   * Resolves the headers that authenticate a request (Authorization, Impersonate-User) and,
   * when credentials rotate, fresh TLS material. Called often: cache inside.
   */
  credentials?: (
    forceRefresh: boolean,
  ) => Promise<{ headers: Record<string, string | string[]>; tls?: https.AgentOptions }>;
  userAgent?: string;
  /** HTTP/1.1 connections for ordinary requests (watches have their own pool). Default: 32. */
  maxSockets?: number;
  /** Offer HTTP/2 to an https server (./http2). Default: true, unless DISABLE_HTTP2 is set, as in client-go. */
  http2?: boolean;
}
