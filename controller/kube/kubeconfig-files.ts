/**
 * Where the kubeconfig comes from, in the order of client-node's loadFromDefault(): `kubeconfig`, else
 * the files of KUBECONFIG, else ~/.kube/config, else the in-cluster service account. Several KUBECONFIG
 * files merge as in client-go: the first file to define a cluster, user or context name wins, and so does
 * the first non-empty current-context. What comes out is named stanzas, each with the file it came from
 * (relative paths in it resolve against that file's directory); ./kubeconfig-stanzas reads their fields.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import * as path from 'node:path';
import { parse } from 'yaml';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Where the kubeconfig is read from (the context is KubeconfigOptions'). */
export interface KubeconfigSources {
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  /** Where KUBECONFIG, HOME and KUBERNETES_SERVICE_HOST/PORT are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The service account's token and ca.crt. Default: /var/run/secrets/kubernetes.io/serviceaccount. */
  serviceAccountDir?: string;
}

/** One named stanza (the body under `cluster:`, `user:` or `context:`) and the file it came from. */
export interface Stanza {
  name: string;
  body: Record<string, unknown>;
  origin: string;
  /** Relative paths in the stanza resolve against this directory. */
  dir: string;
}

/** The stanzas of every file read, the first definition of each name kept. */
export interface Merged {
  /** The sources, for messages about the merged whole. */
  origin: string;
  clusters: Map<string, Stanza>;
  users: Map<string, Stanza>;
  contexts: Map<string, Stanza>;
  currentContext?: string;
}

/** The merged stanzas of the kubeconfig in effect. Throws naming the file. */
export function load(options: KubeconfigSources): Merged {
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

/** A mapping (not a list). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
