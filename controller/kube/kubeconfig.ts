/**
 * Reads the kubeconfig and turns it into a Transport without `@kubernetes/client-node`, whose
 * config module pulls in the whole generated API (55-60 MB of RSS). Covers what a controller meets:
 * certificates, tokens, token files, basic auth, impersonation, the in-cluster service account.
 * Users with `exec` or `auth-provider` are reported in `needsClientNode`: loadClient() in ./client
 * loads client-node for them. See docs/CLIENT.md.
 *
 * Which files are read and how they merge (as client-node's loadFromDefault() and client-go do) is
 * ./kubeconfig-files'; how a stanza's fields are read and checked, ./kubeconfig-stanzas'. Here: the
 * context picked, and the credentials read (again) for each request.
 */
import { readFileSync } from 'node:fs';
import type * as https from 'node:https';
import { load, type KubeconfigSources } from './kubeconfig-files';
import { text, toCluster, toUser, type KubeconfigCluster, type KubeconfigUser } from './kubeconfig-stanzas';
import type { Transport } from './transport';

/** How long credentials are reused before reading them again (as client-go's token file). */
const CREDENTIALS_TTL_MS = 30_000;

export interface KubeconfigOptions extends KubeconfigSources {
  /** A context of the kubeconfig; default: its current-context. */
  context?: string;
}

/** What the chosen context names. */
export interface Kubeconfig {
  context: string;
  cluster: KubeconfigCluster;
  user: KubeconfigUser;
  /** The user field that only client-node can turn into credentials, if the user has one. */
  needsClientNode?: 'exec' | 'auth-provider';
}

type Credentials = Awaited<ReturnType<NonNullable<Transport['credentials']>>>;

/** Reads the kubeconfig in effect and picks the context. Throws naming the file and the field. */
export function readKubeconfig(options: KubeconfigOptions = {}): Kubeconfig {
  try {
    return resolve(options);
  } catch (err) {
    throw new KubeconfigError((err as Error).message, { cause: err });
  }
}

/**
 * A kubeconfig that is missing or cannot be used: a prerequisite the user fixes, said in one line by the
 * commands (no stack trace).
 */
export class KubeconfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeconfigError';
  }
}

function resolve(options: KubeconfigOptions): Kubeconfig {
  const config = load(options);
  const contextName = options.context ?? config.currentContext;
  if (!contextName) {
    throw new Error(`${config.origin}: current-context is not set and no context was given`);
  }
  const context = config.contexts.get(contextName);
  if (!context) throw new Error(`${config.origin}: context "${contextName}" is not defined`);
  const what = `${context.origin}: context "${contextName}"`;
  const clusterName = text(context, 'cluster', what);
  if (!clusterName) throw new Error(`${what} names no cluster`);
  const cluster = config.clusters.get(clusterName);
  if (!cluster) throw new Error(`${what} names cluster "${clusterName}", which is not defined`);
  const userName = text(context, 'user', what);
  const user = userName ? config.users.get(userName) : undefined;
  if (userName && !user) throw new Error(`${what} names user "${userName}", which is not defined`);
  const resolvedUser = user ? toUser(user) : { name: '', origin: context.origin };
  return {
    context: contextName,
    cluster: toCluster(cluster),
    user: resolvedUser,
    needsClientNode: resolvedUser.exec ? 'exec' : resolvedUser.authProvider ? 'auth-provider' : undefined,
  };
}

/**
 * The transport for a kubeconfig whose user needs no client-node. Reads the certificates and token
 * files once now (so that a missing file fails at start), then again at most every 30 s and after
 * a 401 (forceRefresh).
 */
export function kubeconfigTransport(config: Kubeconfig): Transport {
  const { user, needsClientNode } = config;
  if (needsClientNode) {
    const what = `${user.origin}: user "${user.name}"`;
    throw new Error(`${what} uses ${needsClientNode}, which needs @kubernetes/client-node`);
  }
  const first = readCredentials(config);
  return {
    server: config.cluster.server,
    credentials: refreshing(() => readCredentials(config), first),
  };
}

/**
 * Caches what `load` resolves for CREDENTIALS_TTL_MS; forceRefresh (after a 401) loads again at
 * once. A failure is not cached: the next request tries again.
 */
export function refreshing(
  load: () => Credentials | Promise<Credentials>,
  first?: Credentials,
): NonNullable<Transport['credentials']> {
  let cached = first && { at: Date.now(), value: Promise.resolve(first) };
  return (forceRefresh) => {
    const now = Date.now();
    if (!cached || forceRefresh || now - cached.at > CREDENTIALS_TTL_MS) {
      // A load that throws becomes a rejection, like one that rejects.
      const value = Promise.resolve().then(load);
      cached = { at: now, value };
      value.catch(() => {
        if (cached?.value === value) cached = undefined;
      });
    }
    return cached.value;
  };
}

/** Impersonate-* headers for `as`, `as-groups` (one header line per group, as client-go) and `as-uid`. */
export function impersonationHeaders(user: KubeconfigUser): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (user.impersonateUser) headers['Impersonate-User'] = user.impersonateUser;
  if (user.impersonateGroups?.length) headers['Impersonate-Group'] = user.impersonateGroups;
  if (user.impersonateUid) headers['Impersonate-Uid'] = user.impersonateUid;
  return headers;
}

/** Reads certificates, keys and token files (again): called at start, then by refreshing(). */
function readCredentials({ cluster, user }: Kubeconfig): Credentials {
  const tls: https.AgentOptions = {};
  const clusterWhat = `${cluster.origin}: cluster "${cluster.name}"`;
  const userWhat = `${user.origin}: user "${user.name}"`;
  const ca = material(cluster.caData, cluster.caFile, clusterWhat, 'certificate-authority');
  if (ca) tls.ca = ca;
  if (cluster.skipTLSVerify) tls.rejectUnauthorized = false;
  if (cluster.tlsServerName) tls.servername = cluster.tlsServerName;
  const cert = material(user.certData, user.certFile, userWhat, 'client-certificate');
  if (cert) tls.cert = cert;
  const key = material(user.keyData, user.keyFile, userWhat, 'client-key');
  if (key) tls.key = key;
  const headers = impersonationHeaders(user);
  if (user.tokenFile) {
    const token = readFile(user.tokenFile, userWhat, 'tokenFile').toString('utf8').trim();
    if (!token) throw new Error(`${userWhat}: tokenFile ${user.tokenFile} is empty`);
    headers.Authorization = `Bearer ${token}`;
  } else if (user.token) {
    headers.Authorization = `Bearer ${user.token}`;
  } else if (user.username) {
    const basic = Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64');
    headers.Authorization = `Basic ${basic}`;
  }
  return { headers, tls };
}

/** PEM from the `-data` field (base64, wins as in client-go) or else from the file. */
function material(data: string | undefined, file: string | undefined, what: string, field: string) {
  if (data) return Buffer.from(data, 'base64');
  return file ? readFile(file, what, field) : undefined;
}

function readFile(file: string, what: string, field: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`${what}: cannot read ${field}: ${(err as Error).message}`, { cause: err });
  }
}
