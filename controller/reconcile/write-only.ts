/**
 * Children of write-only kinds (`writeOnly(SECRET)`): created, and deleted by uid, never read. The
 * controller knows its own by the uid each creation returned, kept in the resource's
 * `status.createdChildren` and, until the cache shows that status, in memory; it learns whether one still
 * exists by creating it again (a 409 says it does) on its first reconcile after a start and then at most
 * every `recheckMs`. See docs/DESIGN.md, "Write-only children".
 */
import {
  isWriteOnly,
  type ApiKind,
  type CustomResource,
  type Kind,
  type Manifest,
} from '../../constructs/kit';
import { withGeneratedValues } from '../../constructs/kit/child-policy';
import type { Writer } from '../kube/writer';
import { isAlreadyExists, isNotFound, isConflict } from '../kube/errors';
import { objectKey } from '../kube/object-key';

/** A child of a write-only kind the controller created, as `status.createdChildren` records it. */
export interface CreatedChild {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/**
 * The default of WriteOnlyChildren's recheckMs: a resource with write-only children comes back this often
 * (its reconcile asks for it), whatever the resync period.
 */
const WRITE_ONLY_RECHECK_MS = 600_000;

const byName = (a: CreatedChild, b: CreatedChild) =>
  `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`);

/** The write-only children the resource's status records, as a fresh list a reconcile may change. */
export function createdChildrenOf(resource: CustomResource): CreatedChild[] {
  const records = (resource.status as { createdChildren?: CreatedChild[] } | undefined)?.createdChildren;
  return Array.isArray(records) ? records.map((r) => ({ ...r })) : [];
}

/** Whether two record lists say the same. */
export function sameRecords(a: readonly CreatedChild[], b: readonly CreatedChild[]): boolean {
  return a.length === b.length && a.every((r, i) => r.uid === b[i].uid && r.name === b[i].name);
}

export class WriteOnlyChildren {
  /** By resource key, then child key and uid: when the child was last known to exist. */
  private readonly checked = new Map<string, Map<string, number>>();
  /** By resource key: the children this process knows the resource has, with the resource's uid. */
  private readonly made = new Map<string, { uid: string; created: CreatedChild[] }>();

  constructor(
    private readonly writer: Writer,
    private readonly now: () => Date,
    private readonly recheckMs = WRITE_ONLY_RECHECK_MS,
  ) {}

  /** The write-only children the resource has: its status's records and what this process made since. */
  records(key: string, resource: CustomResource): CreatedChild[] {
    const created = createdChildrenOf(resource);
    const made = this.made.get(key);
    if (!made || made.uid !== (resource.metadata.uid ?? '')) return created;
    for (const record of made.created) {
      const i = created.findIndex((c) => c.kind === record.kind && c.name === record.name);
      if (i < 0) created.push({ ...record });
      else created[i] = { ...record };
    }
    return created.sort(byName);
  }

  /** Keeps the records a reconcile ends with, until the cache shows them in the status. */
  remember(key: string, uid: string, created: readonly CreatedChild[]): void {
    if (created.length > 0) this.made.set(key, { uid, created: created.map((c) => ({ ...c })) });
    else this.made.delete(key);
    // Checks of children no longer recorded (pruned, replaced) are not due any more.
    const checked = this.checked.get(key);
    const uids = new Set(created.map((c) => c.uid));
    for (const child of checked?.keys() ?? []) {
      if (!uids.has(child.slice(child.lastIndexOf('\u0000') + 1))) checked?.delete(child);
    }
  }

  /**
   * In how many ms one of the resource's write-only children is due to be looked for again (see create),
   * or undefined when none was looked for: a deleted one sends no event, so the resource must come back
   * by then. 0 when one is overdue (the last reconcile did not get to it).
   */
  nextCheckInMs(key: string): number | undefined {
    const checked = this.checked.get(key);
    if (!this.made.has(key) || !checked || checked.size === 0) return undefined;
    return Math.max(0, Math.min(...checked.values()) + this.recheckMs - this.now().getTime());
  }

  /** Looks for the resource's write-only children again at its next reconcile, whenever they were last seen. */
  recheckNow(key: string): void {
    this.checked.delete(key);
  }

  /** Forgets a resource that is gone. */
  forget(key: string): void {
    this.made.delete(key);
    this.checked.delete(key);
  }

  /**
   * Creates the child unless `created` records it and it was known to exist a short while ago; records a
   * new one in `created`. A name taken that `created` does not record is someone else's: 'foreign'.
   */
  async create(
    key: string,
    type: ApiKind,
    child: Manifest,
    created: CreatedChild[],
  ): Promise<'created' | 'kept' | 'foreign'> {
    const { namespace: ns, name } = child.metadata;
    const index = created.findIndex((c) => c.kind === child.kind && c.name === name);
    const record = index >= 0 ? created[index] : undefined;
    const checked = this.checked.get(key) ?? new Map<string, number>();
    this.checked.set(key, checked);
    const checkedKey = (uid: string) => `${objectKey(type, ns, name)}\u0000${uid}`;
    const now = this.now().getTime();
    if (record && now - (checked.get(checkedKey(record.uid)) ?? -Infinity) < this.recheckMs) {
      return 'kept';
    }
    let uid: string;
    try {
      const made = (await this.writer.create(type, ns, withGeneratedValues(child))) as Manifest;
      uid = made.metadata?.uid ?? '';
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      if (!record) return 'foreign';
      checked.set(checkedKey(record.uid), now);
      return 'kept';
    }
    const entry = { apiVersion: child.apiVersion, kind: child.kind, name, uid };
    if (record) {
      checked.delete(checkedKey(record.uid));
      created[index] = entry;
    } else {
      created.push(entry);
    }
    created.sort(byName);
    checked.set(checkedKey(uid), now);
    return 'created';
  }

  /**
   * Deletes the children `created` records that the resource no longer wants (`wanted` has their keys): by
   * uid, so that an object of the same name that is not the one it made stays. Drops their records from
   * `created`; returns `<Kind> <name>` of each deleted.
   */
  async prune(
    definition: Kind,
    resource: CustomResource,
    created: CreatedChild[],
    wanted: ReadonlySet<string>,
  ): Promise<string[]> {
    const pruned: string[] = [];
    for (const record of [...created]) {
      const type = definition.children.find(
        (c) => isWriteOnly(c) && c.apiVersion === record.apiVersion && c.kind === record.kind,
      );
      if (!type) continue; // The definition changed: kept, and recorded, until it lists the kind again.
      const namespace = type.namespaced ? resource.metadata.namespace : undefined;
      if (wanted.has(objectKey(type, namespace, record.name))) continue;
      try {
        await this.writer.delete(type, namespace, record.name, record.uid);
        pruned.push(`${record.kind} ${record.name}`);
      } catch (err) {
        // Gone already, or replaced by an object that is not ours: either way no longer ours to track.
        if (!(isNotFound(err) || isConflict(err))) throw err;
      }
      created.splice(created.indexOf(record), 1);
    }
    return pruned;
  }
}
