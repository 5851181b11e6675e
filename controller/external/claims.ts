/**
 * Which resource an external object is the work of, when two resources of a kind name the same one (two
 * DnsRecords for one name, two MysqlUsers for one user): each would apply its own spec over the other's,
 * and the first deleted would delete the object under the other. An object is named by its description
 * (`describe(desired)`: "DNS record www.example.com"); of the resources naming it, the oldest (then the
 * first by name) holds it, the others stand aside with Ready=False until it is theirs. Held in memory, by
 * the controller (each member of a sharded one for its resources): rebuilt as resources are reconciled.
 */
import type { Kind } from '../../constructs/kit';

interface Claimant {
  readonly key: string;
  /** Its creationTimestamp (ISO 8601 sorts as text), then its key: the older holds the object. */
  readonly order: string;
}

export class Claims {
  /** `freed`: told the keys of the resources that named an object its holder no longer names. */
  constructor(private readonly freed: (keys: string[]) => void) {}

  /** By kind, by object: the resources that name it. */
  private readonly byObject = new Map<Kind, Map<string, Map<string, Claimant>>>();
  /** By resource key: the object it names now. */
  private readonly named = new Map<string, { definition: Kind; object: string }>();

  /**
   * Records that the resource of `key` names `object` now (letting go of what it named before), and
   * returns the key of the resource that holds the object: `key` itself when it is the oldest.
   */
  claim(definition: Kind, object: string, key: string, created: string | undefined): string {
    const before = this.named.get(key);
    if (before && before.object !== object) this.freed(this.release(key));
    let objects = this.byObject.get(definition);
    if (!objects) this.byObject.set(definition, (objects = new Map<string, Map<string, Claimant>>()));
    let claimants = objects.get(object);
    if (!claimants) objects.set(object, (claimants = new Map<string, Claimant>()));
    claimants.set(key, { key, order: `${created ?? ''}\u0000${key}` });
    this.named.set(key, { definition, object });
    let holder: Claimant | undefined;
    for (const c of claimants.values()) if (!holder || c.order < holder.order) holder = c;
    return holder!.key;
  }

  /** The resource of `key` names nothing any more (it is gone): the keys of the others that named its object. */
  release(key: string): string[] {
    const named = this.named.get(key);
    if (!named) return [];
    this.named.delete(key);
    const objects = this.byObject.get(named.definition);
    const claimants = objects?.get(named.object);
    claimants?.delete(key);
    if (claimants?.size === 0) objects!.delete(named.object);
    return [...(claimants?.keys() ?? [])];
  }
}
