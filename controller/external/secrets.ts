/**
 * The Secrets a kind's external handlers need (KindExternal.secrets), read by name: a GET each, never a
 * list, a watch or a cache of every Secret (the install grants `get` on exactly those names where the kind
 * fixes them). What was read is kept a short while, so that many resources naming one Secret read it once;
 * `recheck` reads each Secret named again and says which resources name one that changed, so that a new
 * token or password reaches the handlers without waiting for the observe interval. A Secret or key that is
 * missing is an ExternalError naming it; no value ever appears in one.
 *
 * A resource being deleted whose Secret has gone meanwhile (its namespace deleted with everything in it)
 * gets the data last read: its object can still be deleted, and the namespace is not held by a finalizer
 * waiting for a Secret that will not come back.
 */
import {
  EXTERNAL_FINALIZER,
  ExternalError,
  SECRET,
  type CustomResource,
  type Kind,
} from '../../constructs/kit';
import { isForbidden } from '../kube/errors';
import { objectKey } from '../kube/object-key';
import type { Writer } from '../kube/writer';

/** How long a Secret read is used before it is read again. */
export const SECRET_TTL_MS = 10_000;
/** How often the controller reads the Secrets its handlers read again, for a change (`recheck`). */
export const SECRET_RECHECK_MS = 30_000;

interface Read {
  readonly data?: Record<string, string>;
  readonly resourceVersion?: string;
  readonly at: number;
}

type SecretObject = { metadata: { resourceVersion?: string }; data?: Record<string, string> };

/** Where a resource's declared Secret is: its namespace and name. */
export function secretRef(
  definition: Kind,
  resource: CustomResource,
  id: string,
): { namespace: string | undefined; name: string } {
  const declared = definition.external!.secrets[id];
  const name = typeof declared.name === 'string' ? declared.name : declared.name(resource);
  return { namespace: declared.namespace ?? resource.metadata.namespace, name: name ?? '' };
}

export class SecretReads {
  private readonly reads = new Map<string, Read>();
  /** By Secret: the data last read while it existed, for a deletion that outlives it. */
  private readonly lastData = new Map<string, Record<string, string>>();
  /** By Secret (namespace/name): the resources whose handlers read it, by their queue key. */
  private readonly readers = new Map<string, Map<string, { definition: Kind; resource: CustomResource }>>();

  constructor(
    private readonly writer: Pick<Writer, 'read'>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The data of every Secret the kind declares for `resource`, decoded, by the kind's name for each.
   * `fresh`: read again whatever is kept (a reconcile now).
   */
  async read(
    definition: Kind,
    resource: CustomResource,
    fresh = false,
  ): Promise<Record<string, Record<string, string>>> {
    const out: Record<string, Record<string, string>> = {};
    const key = objectKey(definition, resource.metadata.namespace, resource.metadata.name);
    for (const [id, declared] of Object.entries(definition.external?.secrets ?? {})) {
      const { namespace, name } = secretRef(definition, resource, id);
      const where = `${namespace ? `${namespace}/` : ''}${name}`;
      if (!name) throw new ExternalError('MissingSecret', `no Secret is named for ${id}`);
      const readers =
        this.readers.get(where) ?? new Map<string, { definition: Kind; resource: CustomResource }>();
      readers.set(key, { definition, resource });
      this.readers.set(where, readers);
      const read = await this.secret(namespace, name, where, fresh);
      const deleting = resource.metadata.deletionTimestamp !== undefined;
      const data = read.data ?? (deleting ? this.lastData.get(where) : undefined);
      if (!data) {
        throw new ExternalError(
          'MissingSecret',
          `Secret ${where} does not exist` +
            (deleting
              ? `: the object cannot be deleted without it; create it again, or remove the finalizer ` +
                `${EXTERNAL_FINALIZER} to leave the object where it is`
              : ''),
        );
      }
      const missing = declared.keys.filter((k) => data[k] === undefined);
      if (missing.length > 0) {
        throw new ExternalError('MissingSecret', `Secret ${where} has no key ${missing.join(', ')}`);
      }
      out[id] = data;
    }
    return out;
  }

  /**
   * The values of what `read` handed out for a resource, to mask in what its handlers say: all but those
   * of the keys the kind declares plain (a host, a port), which would mask their every mention.
   */
  static values(definition: Kind, secrets: Record<string, Record<string, string>>): string[] {
    const declared = definition.external?.secrets ?? {};
    return Object.entries(secrets).flatMap(([id, data]) => {
      const plain = new Set(declared[id]?.plainKeys ?? []);
      return Object.entries(data)
        .filter(([key]) => !plain.has(key))
        .map(([, value]) => value);
    });
  }

  /**
   * Reads each Secret a handler read before again, and returns the resources that read one that has
   * changed since (or gone), for their observe to run again with the new data.
   */
  async recheck(): Promise<{ definition: Kind; resource: CustomResource }[]> {
    const changed: { definition: Kind; resource: CustomResource }[] = [];
    for (const [where, readers] of this.readers) {
      const before = this.reads.get(where);
      const [namespace, name] = where.includes('/') ? where.split('/') : [undefined, where];
      let after: Read;
      try {
        after = await this.secret(namespace, name, where, true);
      } catch {
        continue; // Said by the next handler that reads it.
      }
      if (before?.resourceVersion !== after.resourceVersion) changed.push(...readers.values());
    }
    return changed;
  }

  /** Forgets a resource that is gone: its Secrets are read no more for it. */
  forget(key: string): void {
    for (const [where, readers] of this.readers) {
      readers.delete(key);
      if (readers.size === 0) {
        this.readers.delete(where);
        this.reads.delete(where);
        this.lastData.delete(where);
      }
    }
  }

  private async secret(namespace: string | undefined, name: string, where: string, fresh: boolean) {
    const kept = this.reads.get(where);
    if (kept && !fresh && this.now() - kept.at < SECRET_TTL_MS) return kept;
    let obj: SecretObject | undefined;
    try {
      obj = await this.writer.read<SecretObject>(SECRET, namespace, name);
    } catch (err) {
      if (!isForbidden(err)) throw err;
      throw new ExternalError(
        'Forbidden',
        `the controller may not read Secret ${where}: declare it in the kind's external.secrets and ` +
          'install again',
      );
    }
    const read: Read = {
      at: this.now(),
      ...(obj ? { data: decoded(obj.data ?? {}), resourceVersion: obj.metadata.resourceVersion ?? '' } : {}),
    };
    this.reads.set(where, read);
    if (read.data) this.lastData.set(where, read.data);
    return read;
  }
}

function decoded(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}
