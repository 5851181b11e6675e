/**
 * A kubeconfig's stanzas read into the cluster and the user that client-node's `Cluster` and `User`
 * describe: each field checked for its type, file paths resolved against the stanza's file, and the
 * combinations client-go refuses refused. A message names the file, the stanza and the field.
 */
import * as path from 'node:path';
import { isObject, type Stanza } from './kubeconfig-files';

/** A cluster stanza, in the shape of client-node's `Cluster` (the fallback hands it over as is). */
export interface KubeconfigCluster {
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
export interface KubeconfigUser {
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

export function toCluster(stanza: Stanza): KubeconfigCluster {
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

export function toUser(stanza: Stanza): KubeconfigUser {
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

/** A string field; "" counts as unset, as in client-go. */
export function text(stanza: Stanza, key: string, what: string): string | undefined {
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
