/**
 * Drift that server-side apply cannot undo. An apply removes only what its own field manager set: a list
 * entry another manager added, or one whose key it changed (a hand-edited Service port, a renamed env
 * variable), stays beside ours. Sometimes the API server then refuses the merge (two ports of the same
 * name: 422), sometimes it keeps both (an extra env entry, an extra volume). Either way the object never
 * converges by applying again.
 *
 * The repair is what `kubectl edit` would do: the live object with every desired field restored and the
 * foreign entries of the desired lists removed, written as a JSON patch of the drifted top-level fields
 * (verb patch, each guarded by a test of its value as read), keeping whatever the API server and other managers set
 * outside our lists (defaults, allocated node ports, fields of ours they took are taken back). The apply
 * that follows makes our apply manager own the fields again.
 */
import type { ApiKind, Manifest } from '../../constructs/kit';
import type { Writer } from '../kube/writer';
import { firstDifference, hashObject } from '../reconcile/converge';
import { immutableFields, isInvalid, isConflict } from '../kube/errors';
import type { Logger } from '../log';

type Json = unknown;

/** Tries of a repair whose resourceVersion guard failed (the object moved meanwhile). */
const REPAIR_ATTEMPTS = 4;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How many of a desired list entry's scalar fields a live entry has with the same value. */
function likeness(desired: Json, live: Json): number {
  if (!isObject(desired) || !isObject(live)) return firstDifference(desired, live) === undefined ? 1 : 0;
  let same = 0;
  for (const [k, v] of Object.entries(desired)) {
    if (!isObject(v) && !Array.isArray(v) && firstDifference(v, live[k]) === undefined) same++;
  }
  return same;
}

/**
 * `live` with `desired` restored: every desired field has its desired value; each desired list holds
 * exactly the desired entries, each merged over the live entry most like it (so that defaults the server
 * filled in stay), and no others; fields only `live` has are kept.
 */
export function restored(desired: Json, live: Json): Json {
  if (Array.isArray(desired)) {
    const candidates = Array.isArray(live) ? [...(live as Json[])] : [];
    return desired.map((entry) => {
      let best = -1;
      let score = 0;
      candidates.forEach((candidate, i) => {
        const s = likeness(entry, candidate);
        if (s > score) [best, score] = [i, s];
      });
      const match = best >= 0 ? candidates.splice(best, 1)[0] : undefined;
      return restored(entry, match);
    });
  }
  if (isObject(desired)) {
    const out: JsonObject = isObject(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(desired)) out[k] = restored(v, out[k]);
    return out;
  }
  return desired;
}

/** The top-level fields (not metadata or status) where `live` does not hold `desired`. */
function driftedFields(desired: Manifest, live: Manifest): string[] {
  const skip = new Set(['apiVersion', 'kind', 'metadata', 'status']);
  return Object.keys(desired).filter(
    (k) => !skip.has(k) && firstDifference((desired as JsonObject)[k], (live as JsonObject)[k]) !== undefined,
  );
}

/**
 * The JSON patch that restores `desired` in `live`'s drifted fields, or undefined when none drifted. Each
 * field is guarded by a `test` of what was read: the patch fails if someone changed it meanwhile, but not
 * for a status write (a Deployment in a rollout moves its resourceVersion many times a second).
 */
export function repairPatch(desired: Manifest, live: Manifest): Json[] | undefined {
  const fields = driftedFields(desired, live);
  if (fields.length === 0) return undefined;
  return fields.flatMap((k) => {
    const was = (live as JsonObject)[k];
    const value = restored((desired as JsonObject)[k], was);
    const path = `/${k}`;
    return was === undefined
      ? [{ op: 'add', path, value }]
      : [
          { op: 'test', path, value: was },
          { op: 'replace', path, value },
        ];
  });
}

/** What applying one child took. */
interface DriftApplied {
  readonly written: Manifest;
  /** The fields repaired by a patch, when an apply alone could not converge. */
  readonly repaired?: string[];
}

/**
 * Applies children and repairs the drift an apply leaves behind. An object whose repair does not hold (a
 * mutating webhook or another controller puts the entries back) is repaired once per desired state, then
 * left as it is, with a warning: two controllers must not fight over it.
 */
/** What drift repair writes through: applies, a read of the live object, a JSON patch. */
export type DriftWriter = Pick<Writer, 'apply' | 'read' | 'jsonPatch'>;

export class DriftRepair {
  /** By child key: the hash of the desired object whose repair did not hold. */
  private readonly given = new Map<string, string>();

  constructor(
    private readonly writer: DriftWriter,
    private readonly log: Logger,
  ) {}

  /** Forgets a child that is gone with its resource. */
  forget(childKey: string): void {
    this.given.delete(childKey);
  }

  async apply(type: ApiKind, key: string, body: Manifest, log = this.log): Promise<DriftApplied> {
    let written: Manifest;
    try {
      written = await this.writer.apply(type, body);
    } catch (err) {
      // Invalid after the merge (a duplicate port name, say): the live object has entries in the way. A
      // change to an immutable field is no drift: no patch makes it either (see replace.ts).
      if (!isInvalid(err) || immutableFields(err).length > 0) throw err;
      const repaired = await this.repair(type, key, body, log);
      if (!repaired) throw err;
      return { written: await this.writer.apply(type, body), repaired };
    }
    if (driftedFields(body, written).length === 0) {
      this.given.delete(key);
      return { written };
    }
    const repaired = await this.repair(type, key, body, log, written);
    return repaired ? { written, repaired } : { written };
  }

  private async repair(
    type: ApiKind,
    key: string,
    body: Manifest,
    log: Logger,
    known?: Manifest,
  ): Promise<string[] | undefined> {
    const hash = hashObject(body);
    if (this.given.get(key) === hash) return undefined;
    const { namespace, name } = body.metadata;
    const child = `${body.kind}/${name}`;
    // Someone changed a field meanwhile (the tests fail): read again and retry a few times before the
    // reconcile's own backoff.
    for (let attempt = 1; ; attempt++) {
      const live = attempt === 1 && known ? known : await this.writer.read<Manifest>(type, namespace, name);
      const patch = live && repairPatch(body, live);
      if (!live || !patch) return undefined;
      const fields = driftedFields(body, live);
      let after: Manifest;
      try {
        after = (await this.writer.jsonPatch(
          type,
          type.namespaced ? namespace : undefined,
          name,
          patch,
        )) as Manifest;
      } catch (err) {
        const moved = isConflict(err) || isInvalid(err);
        if (moved && attempt < REPAIR_ATTEMPTS) continue;
        throw new Error(`repair drift of ${child} in ${fields.join(', ')}: ${String(err)}`, { cause: err });
      }
      const still = driftedFields(body, after);
      if (still.length > 0) {
        this.given.set(key, hash);
        log.warn('repaired drift did not hold: something else changes this child; leaving it as it is', {
          child,
          fields: still,
        });
      } else {
        log.info('repaired drift that an apply cannot undo', { child, fields });
      }
      return fields;
    }
  }
}
