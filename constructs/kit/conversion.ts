/**
 * Converting a resource between its kind's versions, losslessly: through the hub (the kind's own version),
 * with what the target version cannot say kept in an annotation and put back when the object converts
 * back, as kubebuilder's book prescribes and Cluster API does, but without code in each conversion: the
 * kit finds what a round trip loses by making it.
 *
 * The annotation `reconstruct.dev/conversion-data` holds, per version, the parts (`spec` and the kind's own
 * `status` fields) an object had in that version when converting away from it lost something. Converting
 * to version T puts back, from T's entry, each field a round trip through the source version cannot carry
 * (the fields T alone can say), takes the rest from the source, and drops T's entry. The API server calls
 * this (the controller's conversion webhook), and so do the offline renderer and the in-memory cluster.
 */
import { sameJson } from './same-json';
import type { CustomResource } from './resource';
import { commonStatus } from './schema';
import type { KindVersion, VersionedParts } from './versions';

/** Where a conversion keeps what the other version cannot say (JSON: version -> { spec, status }). */
export const CONVERSION_DATA_ANNOTATION = 'reconstruct.dev/conversion-data';

type Parts = VersionedParts<unknown, unknown>;
type Json = Record<string, unknown>;

/** The status fields the kit adds to every kind: the same in every version, never converted. */
const KIT_STATUS = new Set([...Object.keys(commonStatus), 'createdChildren']);

/** Converts resources of one kind between its versions. */
export class Converter {
  private readonly spokes: Map<string, KindVersion>;

  constructor(
    private readonly group: string,
    private readonly kind: string,
    /** The hub: the kind's own version. */
    private readonly hub: string,
    versions: readonly KindVersion[],
  ) {
    this.spokes = new Map(versions.map((v) => [v.name, v]));
  }

  /** The versions it converts between. */
  get versions(): string[] {
    return [this.hub, ...this.spokes.keys()];
  }

  /**
   * The resource as `apiVersion` (`<group>/<version>`) says it; the same object when it already is.
   * Throws naming the resource for a version the kind does not have, or a conversion that throws.
   */
  convert<T extends CustomResource>(resource: T, apiVersion: string): T {
    if (resource.apiVersion === apiVersion) return resource;
    const from = this.versionOf(resource, resource.apiVersion);
    const to = this.versionOf(resource, apiVersion);
    const source = partsOf(resource);
    const raw = this.via(resource, from, to, source);
    const saved = savedParts(resource);
    const restored = saved[to]
      ? restore(raw, saved[to], this.via(resource, to, from, saved[to]), (p) =>
          this.via(resource, from, to, p),
        )
      : raw;
    delete saved[to];
    // What this version says that the target cannot: kept for the way back.
    if (!sameJson(this.via(resource, to, from, raw), source)) saved[from] = source;
    else delete saved[from];
    return withParts(resource, apiVersion, restored, saved);
  }

  private versionOf(resource: CustomResource, apiVersion: string): string {
    const [group, version] = apiVersion.split('/');
    if (group !== this.group || (version !== this.hub && !this.spokes.has(version))) {
      throw new Error(
        `${describe(resource)}: ${this.kind} has no version ${apiVersion} (it has ${this.versions.map((v) => `${this.group}/${v}`).join(', ')})`,
      );
    }
    return version;
  }

  /** Parts of version `from` as version `to` says them, through the hub. */
  private via(resource: CustomResource, from: string, to: string, parts: Parts): Parts {
    if (from === to) return parts;
    const call = (version: string, fn: 'toHub' | 'fromHub', input: Parts): Parts => {
      const spoke = this.spokes.get(version)!;
      try {
        return normalize(spoke[fn](structuredClone(input)));
      } catch (err) {
        throw new Error(
          `${describe(resource)}: converting ${fn === 'toHub' ? `${version} to ${this.hub}` : `${this.hub} to ${version}`} failed: ${(err as Error).message}`,
          { cause: err },
        );
      }
    };
    const hub = from === this.hub ? parts : call(from, 'toHub', parts);
    return to === this.hub ? hub : call(to, 'fromHub', hub);
  }
}

/**
 * `raw` (the source converted) with the fields of `saved` (the target's kept parts) put back that a round
 * trip through the source version loses: the fields only the target can say. Where the source still says
 * what it said then (`raw` agrees with the round trip there), the kept value is put back; where it says
 * something else, the source changed it since, and `raw` stands (a spoke's `ha: false` over a kept
 * `replicas: 3`).
 */
function restore(raw: Parts, saved: Parts, backThroughSource: Parts, forward: (p: Parts) => Parts): Parts {
  const roundTrip = forward(backThroughSource) as unknown as Json;
  const out = structuredClone(raw) as unknown as Json;
  for (const path of lostLeaves(saved, roundTrip)) {
    if (sameJson(getAt(out, path), getAt(roundTrip, path))) {
      setAt(out, path, structuredClone(getAt(saved as unknown as Json, path)));
    }
  }
  return out as unknown as Parts;
}

/** The paths of `saved`'s leaves (scalars and arrays) whose value `roundTrip` does not have. */
function lostLeaves(saved: unknown, roundTrip: unknown, path: string[] = []): string[][] {
  if (isJsonObject(saved)) {
    return Object.keys(saved).flatMap((key) =>
      lostLeaves(saved[key], isJsonObject(roundTrip) ? roundTrip[key] : undefined, [...path, key]),
    );
  }
  return sameJson(saved, roundTrip) ? [] : [path];
}

function getAt(obj: Json, path: readonly string[]): unknown {
  return path.reduce<unknown>((o, key) => (isJsonObject(o) ? o[key] : undefined), obj);
}

function setAt(obj: Json, path: readonly string[], value: unknown): void {
  let o = obj;
  for (const key of path.slice(0, -1)) {
    if (!isJsonObject(o[key])) o[key] = {};
    o = o[key] as Json;
  }
  o[path[path.length - 1]] = value;
}

const isJsonObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A resource's spec and own status fields. */
function partsOf(resource: CustomResource): Parts {
  const status = Object.fromEntries(
    Object.entries((resource.status ?? {}) as Json).filter(([key]) => !KIT_STATUS.has(key)),
  );
  return normalize({
    spec: resource.spec ?? {},
    ...(Object.keys(status).length > 0 ? { status } : {}),
  });
}

/** Parts as JSON would carry them: no undefined fields, no empty status. */
function normalize(parts: Parts): Parts {
  const json = JSON.parse(JSON.stringify(parts ?? {})) as Json;
  const out: Json = { spec: json.spec ?? {} };
  if (isJsonObject(json.status) && Object.keys(json.status).length > 0) out.status = json.status;
  return out as unknown as Parts;
}

function savedParts(resource: CustomResource): Record<string, Parts> {
  const text = resource.metadata?.annotations?.[CONVERSION_DATA_ANNOTATION];
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return isJsonObject(parsed) ? (parsed as Record<string, Parts>) : {};
  } catch {
    // Not ours to fail on: a hand-edited annotation only loses what it kept.
    return {};
  }
}

/** The resource in `apiVersion` with `parts`, the kit's status fields as they were, and the kept data. */
function withParts<T extends CustomResource>(
  resource: T,
  apiVersion: string,
  parts: Parts,
  saved: Record<string, Parts>,
): T {
  const kitStatus = Object.fromEntries(
    Object.entries((resource.status ?? {}) as Json).filter(([key]) => KIT_STATUS.has(key)),
  );
  const status = { ...kitStatus, ...((parts.status as Json | undefined) ?? {}) };
  const annotations = { ...(resource.metadata?.annotations ?? {}) };
  if (Object.keys(saved).length > 0) annotations[CONVERSION_DATA_ANNOTATION] = JSON.stringify(saved);
  else delete annotations[CONVERSION_DATA_ANNOTATION];
  const rest: Json = { ...resource };
  delete rest.status;
  const metadata: Json = { ...resource.metadata };
  delete metadata.annotations;
  return {
    ...rest,
    apiVersion,
    metadata: { ...metadata, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    spec: parts.spec,
    ...(resource.status !== undefined || Object.keys(status).length > 0 ? { status } : {}),
  } as T;
}

function describe(resource: CustomResource): string {
  const { namespace, name } = resource.metadata ?? {};
  return `${resource.kind} ${namespace ? `${namespace}/` : ''}${name ?? '<no name>'}`;
}
