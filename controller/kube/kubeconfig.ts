/**
 * Reads the kubeconfig and turns it into a Transport without `@kubernetes/client-node`, whose
 * config module pulls in the whole generated API (55-60 MB of RSS). Covers what a controller meets:
 * certificates, tokens, token files, basic auth, impersonation, the in-cluster service account.
 * Users with `exec` or `auth-provider` are reported in `needsClientNode`: loadClient() in ./client
 * loads client-node for them. See docs/CLIENT.md.
 *
 * Where the config comes from, in the order of client-node's loadFromDefault(): `options.kubeconfig`,
 * else the files of KUBECONFIG, else ~/.kube/config, else the in-cluster service account. Several
 * KUBECONFIG files merge as in client-go: the first file to define a cluster, user or context name
 * wins, and so does the first non-empty current-context. Relative paths resolve against the
 * directory of the file that holds them.
 */
import { existsSync, readFileSync } from 'node:fs';
import type * as https from 'node:https';
import { isIPv6 } from 'node:net';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { Transport } from './transport';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** How long credentials are reused before reading them again (as client-go's token file). */
const CREDENTIALS_TTL_MS = 30_000;

export interface KubeconfigOptions {
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  /** A context of the kubeconfig; default: its current-context. */
  context?: string;
  /** Where KUBECONFIG, HOME and KUBERNETES_SERVICE_HOST/PORT are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The service account's token and ca.crt. Default: /var/run/secrets/kubernetes.io/serviceaccount. */
  serviceAccountDir?: string;
}

/** A cluster stanza, in the shape of client-node's `Cluster` (the fallback hands it over as is). */
interface KubeconfigCluster {
  name: string;
  /** Where it was defined, for messages: `kubeconfig /path` or `in-cluster config /dir`. */
  origin: string;
  server: string;
  /** An absolute path. */
  caFile?: string;
  /** Base64 PEM; wins over caFile, as in client-go. */
  caData?: string;
  skipTLSVerify: boolean;
  tlsServerName?: string;
}

/** A user stanza, in the shape of client-node's `User` (plus what only the native reader knows). */
interface KubeconfigUser {
  /** Empty for a context without a user: no credentials. */
  name: string;
  /** Where it was defined, for messages. */
  origin: string;
  certFile?: string;
  certData?: string;
  keyFile?: string;
  keyData?: string;
  token?: string;
  /** Read again whenever the credentials are (rotated service account tokens); wins over token. */
  tokenFile?: string;
  username?: string;
  password?: string;
  impersonateUser?: string;
  impersonateGroups?: string[];
  impersonateUid?: string;
  /** The kubeconfig's `exec` stanza, its relative command resolved as client-go does. */
  exec?: Record<string, unknown>;
  authProvider?: Record<string, unknown>;
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

/** One named stanza (the body under `cluster:`, `user:` or `context:`) and the file it came from. */
interface Stanza {
  name: string;
  body: Record<string, unknown>;
  origin: string;
  /** Relative paths in the stanza resolve against this directory. */
  dir: string;
}

interface Merged {
  /** The sources, for messages about the merged whole. */
  origin: string;
  clusters: Map<string, Stanza>;
  users: Map<string, Stanza>;
  contexts: Map<string, Stanza>;
  currentContext?: string;
}

function load(options: KubeconfigOptions): Merged {
  const env = options.env ?? process.env;
  if (options.kubeconfig) return merge([options.kubeconfig]);
  const list = (env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
  if (list.length > 0) {
    // client-go skips the files of KUBECONFIG that do not exist.
    const present = list.filter((file) => existsSync(file));
    if (present.length === 0) throw new Error(`KUBECONFIG=${env.KUBECONFIG}: none of these files exists`);
    return merge(present);
  }
  const home = env.HOME || env.USERPROFILE;
  const defaultFile = home ? path.join(home, '.kube', 'config') : undefined;
  if (defaultFile && existsSync(defaultFile)) return merge([defaultFile]);
  const saDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if (existsSync(path.join(saDir, 'token'))) return inCluster(env, saDir);
  throw new Error(
    `no kubeconfig: KUBECONFIG is not set, ${defaultFile ?? '~/.kube/config'} does not exist, ` +
      `and there is no service account token in ${saDir}: set KUBECONFIG, or start a local cluster ` +
      '(`reconstruct cluster up`, then `export KUBECONFIG=$(reconstruct cluster kubeconfig)`)',
  );
}

/** Like client-go's InClusterConfig: the service's address from the environment, the mounted token and CA. */
function inCluster(env: NodeJS.ProcessEnv, dir: string): Merged {
  const origin = `in-cluster config ${dir}`;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new Error(`${origin}: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set`);
  }
  const stanza = (name: string, body: Record<string, unknown>): Map<string, Stanza> =>
    new Map([[name, { name, body, origin, dir }]]);
  return {
    origin,
    clusters: stanza('inCluster', {
      server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
      'certificate-authority': path.join(dir, 'ca.crt'),
    }),
    users: stanza('inClusterUser', { tokenFile: path.join(dir, 'token') }),
    contexts: stanza('inClusterContext', { cluster: 'inCluster', user: 'inClusterUser' }),
    currentContext: 'inClusterContext',
  };
}

function merge(files: string[]): Merged {
  const merged: Merged = {
    origin: `kubeconfig ${files.join(path.delimiter)}`,
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const file of files) {
    const origin = `kubeconfig ${file}`;
    const doc = parseFile(file, origin);
    const dir = path.dirname(path.resolve(file));
    for (const [list, key, into] of [
      ['clusters', 'cluster', merged.clusters],
      ['users', 'user', merged.users],
      ['contexts', 'context', merged.contexts],
    ] as const) {
      const entries = doc[list] ?? [];
      if (!Array.isArray(entries)) throw new Error(`${origin}: ${list} must be a list`);
      entries.forEach((entry: unknown, i) => {
        if (!isObject(entry) || typeof entry.name !== 'string' || !entry.name) {
          throw new Error(`${origin}: ${list}[${i}] has no name`);
        }
        const name = entry.name;
        const body = entry[key] ?? {};
        if (!isObject(body)) throw new Error(`${origin}: ${list}[${i}].${key} must be a mapping`);
        if (!into.has(name)) into.set(name, { name, body, origin, dir });
      });
    }
    const current = doc['current-context'];
    if (current !== undefined && current !== null && typeof current !== 'string') {
      throw new Error(`${origin}: current-context must be a string`);
    }
    merged.currentContext ||= current || undefined;
  }
  return merged;
}

function parseFile(file: string, origin: string): Record<string, unknown> {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${origin}: cannot read it: ${(err as Error).message}`, { cause: err });
  }
  let doc: unknown;
  try {
    doc = parse(source);
  } catch (err) {
    throw new Error(`${origin}: not valid YAML: ${(err as Error).message}`, { cause: err });
  }
  if (doc === null || doc === undefined) return {};
  if (!isObject(doc)) throw new Error(`${origin}: not a kubeconfig (expected a mapping)`);
  return doc;
}

function toCluster(stanza: Stanza): KubeconfigCluster {
  const what = `${stanza.origin}: cluster "${stanza.name}"`;
  const server = text(stanza, 'server', what);
  if (!server) throw new Error(`${what} has no server`);
  if (!URL.canParse(server)) throw new Error(`${what}: server "${server}" is not a URL`);
  if (text(stanza, 'proxy-url', what)) {
    throw new Error(`${what} sets proxy-url, which this client does not support`);
  }
  return {
    name: stanza.name,
    origin: stanza.origin,
    server,
    caFile: filePath(stanza, 'certificate-authority', what),
    caData: text(stanza, 'certificate-authority-data', what),
    skipTLSVerify: flag(stanza, 'insecure-skip-tls-verify', what),
    tlsServerName: text(stanza, 'tls-server-name', what),
  };
}

function toUser(stanza: Stanza): KubeconfigUser {
  const what = `${stanza.origin}: user "${stanza.name}"`;
  const user: KubeconfigUser = {
    name: stanza.name,
    origin: stanza.origin,
    certFile: filePath(stanza, 'client-certificate', what),
    certData: text(stanza, 'client-certificate-data', what),
    keyFile: filePath(stanza, 'client-key', what),
    keyData: text(stanza, 'client-key-data', what),
    token: text(stanza, 'token', what),
    // `token-file` is what client-node reads; client-go's name is tokenFile.
    tokenFile: filePath(stanza, 'tokenFile', what) ?? filePath(stanza, 'token-file', what),
    username: text(stanza, 'username', what),
    password: text(stanza, 'password', what),
    impersonateUser: text(stanza, 'as', what),
    impersonateGroups: impersonateGroups(stanza, what),
    impersonateUid: text(stanza, 'as-uid', what),
    exec: mapping(stanza, 'exec', what),
    authProvider: mapping(stanza, 'auth-provider', what),
  };
  const extra = stanza.body['as-user-extra'];
  if (isObject(extra) && Object.keys(extra).length > 0) {
    throw new Error(`${what} sets as-user-extra, which this client does not support`);
  }
  const hasCert = Boolean(user.certFile || user.certData);
  if (hasCert !== Boolean(user.keyFile || user.keyData)) {
    const [has, lacks] = hasCert
      ? ['client-certificate', 'client-key']
      : ['client-key', 'client-certificate'];
    throw new Error(`${what} has a ${has} but no ${lacks}`);
  }
  if ((user.token || user.tokenFile) && (user.username || user.password)) {
    throw new Error(`${what} sets both a token and username/password: only one is allowed`);
  }
  if (user.exec && user.authProvider) {
    throw new Error(`${what} sets both exec and auth-provider: only one is allowed`);
  }
  if (user.exec) {
    // client-go resolves a command with a path separator against the kubeconfig's directory; a
    // bare name is looked up on PATH.
    const command = user.exec.command;
    if (typeof command === 'string' && command.includes('/') && !path.isAbsolute(command)) {
      user.exec = { ...user.exec, command: path.join(stanza.dir, command) };
    }
  }
  return user;
}

function impersonateGroups(stanza: Stanza, what: string): string[] | undefined {
  const groups = stanza.body['as-groups'];
  if (groups === undefined || groups === null) return undefined;
  if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string' && g !== '')) {
    throw new Error(`${what}: as-groups must be a list of group names`);
  }
  return groups as string[];
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

/** A string field; "" counts as unset, as in client-go. */
function text(stanza: Stanza, key: string, what: string): string | undefined {
  const value = stanza.body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`${what}: ${key} must be a string`);
  return value;
}

function filePath(stanza: Stanza, key: string, what: string): string | undefined {
  const value = text(stanza, key, what);
  return value && path.resolve(stanza.dir, value);
}

function flag(stanza: Stanza, key: string, what: string): boolean {
  const value = stanza.body[key] ?? false;
  if (typeof value !== 'boolean') throw new Error(`${what}: ${key} must be true or false`);
  return value;
}

function mapping(stanza: Stanza, key: string, what: string): Record<string, unknown> | undefined {
  const value = stanza.body[key];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new Error(`${what}: ${key} must be a mapping`);
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
