/**
 * What the MysqlDatabase and MysqlUser kinds share: the server Secret their spec names (its schema, its
 * declaration for the kit, the account read from it) and the server layer's failures in the kinds' words
 * (Ready's reasons ServerUnreachable, AccessDenied naming the Secret, Invalid, Waiting).
 */
import {
  DNS_SUBDOMAIN,
  ExternalError,
  MAX_SUBDOMAIN_LENGTH,
  type CustomResource,
  type ExternalContext,
  type ExternalSecret,
  type JSONSchemaProps,
} from '../kit';
import { isMysqlServerError } from './errors';
import { InvalidNameError } from './names';
import type { ServerConnection } from './connection';

/** The port of a server Secret without one. */
export const DEFAULT_PORT = 3306;

/** While a database a user is granted on does not exist yet: looked at again this soon (it is being made). */
export const WAITING_RETRY_SECONDS = 5;

/** The spec field both kinds name their server Secret by. */
export interface ServerSecretRef {
  readonly serverSecretRef: { readonly name: string };
}

export const serverSecretRefSchema: JSONSchemaProps = {
  type: 'object',
  description:
    "The Secret in the resource's namespace with the server's address and an account that may create " +
    'databases, users and grants: keys `host`, `port` (default 3306), `username`, `password`.',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: MAX_SUBDOMAIN_LENGTH, pattern: DNS_SUBDOMAIN },
  },
};

/** The server Secret as the kit reads it for the handlers (`context.secrets.server`). */
export const serverSecret: ExternalSecret<ServerSecretRef> = {
  name: (r) => r.spec.serverSecretRef.name,
  keys: ['host', 'username', 'password'],
  optionalKeys: ['port'],
  // What Ready's message may show: where the server is and whose account was refused.
  plainKeys: ['host', 'port', 'username'],
};

/**
 * What tells a database or a user apart from those of other servers (the kit's `identity`): the server
 * Secret, then the object. Two Secrets for one server are not seen as one: the server alone could say so.
 */
export function onServer(resource: CustomResource<ServerSecretRef>, object: string): string {
  return `${resource.metadata.namespace}/${resource.spec.serverSecretRef.name}: ${object}`;
}

/** `namespace/name` of the server Secret, as messages name it. */
export function serverSecretName(context: ExternalContext<ServerSecretRef>): string {
  const { resource } = context;
  return `${resource.metadata.namespace}/${resource.spec.serverSecretRef.name}`;
}

/** The server and its account, from the server Secret; a port that is not one is Invalid. */
export function serverOf(context: ExternalContext<ServerSecretRef>): ServerConnection {
  const { host, port = '', username, password } = context.secrets.server;
  const number = port.trim() === '' ? DEFAULT_PORT : Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65535) {
    throw new ExternalError(
      'Invalid',
      `Secret ${serverSecretName(context)}: port ${JSON.stringify(port)} is not a port number`,
      { stalled: true },
    );
  }
  return { host, port: number, username, password };
}

/**
 * Calls the server layer and says its failures in the kinds' words: a MysqlServerError's reason becomes
 * Ready's (AccessDenied naming the Secret whose account was refused), a name the server cannot take is
 * Invalid, a grant on a database not made yet is looked at again soon. Anything else (an abort) goes on.
 */
export async function inKindWords<T>(
  context: ExternalContext<ServerSecretRef>,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    // Refused credentials and requests wait for a change (the Secret, the spec): stalled, not on their way.
    if (error instanceof InvalidNameError)
      throw new ExternalError('Invalid', error.message, { stalled: true });
    if (!isMysqlServerError(error)) throw error;
    if (error.reason === 'AccessDenied') {
      const message = `Secret ${serverSecretName(context)}: ${error.message}`;
      throw new ExternalError('AccessDenied', message, { stalled: true });
    }
    const retry = error.reason === 'Waiting' ? { retryAfterSeconds: WAITING_RETRY_SECONDS } : {};
    throw new ExternalError(error.reason, error.message, { ...retry, stalled: error.reason === 'Invalid' });
  }
}

/**
 * What `read` resolves, or undefined when it refuses a name before asking the server (InvalidNameError):
 * no object can exist under a name the server cannot take, so observing one finds nothing (and a resource
 * with such a name can be deleted).
 */
export async function nothingIfInvalidName<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidNameError) return undefined;
    throw error;
  }
}
