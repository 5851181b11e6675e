/**
 * A kind's other versions: each with its schema and its conversion to and from the kind's own version (the
 * hub, which the construct is written against), as kubebuilder's hub and spokes. The checks of a versioned
 * definition, and the list of versions as the CRD and the conversion see them.
 */
import type { KindSchema } from './kind-schema';

/** An object's `spec` and the kind's own `status` fields, as a conversion sees them. */
export interface VersionedParts<Spec, Status> {
  readonly spec: Spec;
  /** The kind's own status fields (the kit's, `conditions` and the rest, are the same in every version). */
  readonly status?: Status;
}

/**
 * Another version of a kind (a spoke): its schema, whether the API server serves it, and how its objects
 * convert to and from the kind's own version (the hub). `Spec` and `Status` are this version's generated
 * types (`BalancerV1alpha1Spec`), `HubSpec` and `HubStatus` the kind's.
 *
 * A conversion need not keep what the other version cannot say: the kit keeps it, in the annotation
 * `reconstruct.dev/conversion-data` of the converted object, and puts it back when the object converts
 * back (so a v1beta1 `replicas: 3` survives being read and written back as v1alpha1, which has no
 * replicas). Give each direction everything the other version can say.
 */
export interface KindVersion<HubSpec = unknown, HubStatus = unknown, Spec = unknown, Status = unknown> {
  /** The version, e.g. `v1alpha1`. */
  readonly name: string;
  /** Its schema; `description` defaults to the kind's. */
  readonly schema: Omit<KindSchema, 'description'> & { readonly description?: string };
  /**
   * Whether the API server serves it: a version no longer served can still be stored (until `reconstruct
   * migrate` rewrites the objects) and convert.
   * @default true
   */
  readonly served?: boolean;
  /**
   * Deprecated: every request for it gets a warning (kubectl prints it). A string is the warning itself.
   * @default false
   */
  readonly deprecated?: boolean | string;
  /**
   * Fields of this version the hub has no place for, as dotted paths (`spec.color`): the conversion data
   * keeps them through the hub, and `checkConversions` lets them differ when the data is gone.
   */
  readonly onlyHere?: readonly string[];
  /** Fields of the hub this version has no place for (`spec.replicas`), likewise. */
  readonly onlyInHub?: readonly string[];
  /** This version's spec and own status, in the hub's terms. */
  toHub(from: VersionedParts<Spec, Status>): VersionedParts<HubSpec, HubStatus>;
  /** The hub's spec and own status, in this version's terms. */
  fromHub(from: VersionedParts<HubSpec, HubStatus>): VersionedParts<Spec, Status>;
}

/** One version as the CRD and the conversion see it. */
export interface VersionInfo {
  readonly name: string;
  readonly served: boolean;
  /** The version objects are stored in. */
  readonly storage: boolean;
  /** The hub: the version the construct is written against, and the controller reads. */
  readonly hub: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning?: string;
}

const VERSION_NAME = /^v\d+((alpha|beta)\d+)?$/;

/** The problems of a definition's versions, `hub` its own version, `storage` the one it says is stored. */
export function versionProblems(
  hub: string,
  versions: readonly KindVersion[] | undefined,
  storage: string | undefined,
): string[] {
  const problems: string[] = [];
  if (versions === undefined) {
    if (storage !== undefined && storage !== hub)
      problems.push(`storageVersion "${storage}" is not a version of the kind (it has ${hub} only)`);
    return problems;
  }
  if (!Array.isArray(versions)) return ['versions must be a list of { name, schema, toHub, fromHub }'];
  // What a definition written without the types may hold.
  const list: readonly (Partial<KindVersion> | undefined)[] = versions;
  const names = new Set([hub]);
  list.forEach((v, i) => {
    const at = `versions[${i}]${typeof v?.name === 'string' ? ` (${v.name})` : ''}`;
    if (typeof v?.name !== 'string' || !VERSION_NAME.test(v.name)) {
      problems.push(`${at}: name must look like v1, v1alpha1, v2beta3`);
    } else if (names.has(v.name)) {
      problems.push(`${at}: ${v.name} is defined twice (the kind's own apiVersion is ${hub})`);
    } else {
      names.add(v.name);
    }
    if (v?.schema?.spec?.type !== 'object') problems.push(`${at}: schema.spec must be an object schema`);
    // No path between this version and the hub: objects stored in it could never be read as another.
    for (const fn of ['toHub', 'fromHub'] as const) {
      if (typeof v?.[fn] !== 'function')
        problems.push(`${at}: ${fn} is missing: without it, ${String(v?.name)} objects cannot convert`);
    }
    for (const list of ['onlyHere', 'onlyInHub'] as const) {
      for (const path of v?.[list] ?? []) {
        if (typeof path !== 'string' || !/^(spec|status)(\.[^.]+)+$/.test(path))
          problems.push(
            `${at}: ${list} "${String(path)}" must be a dotted path in spec or status (spec.replicas)`,
          );
      }
    }
    if (v?.deprecated !== undefined && typeof v.deprecated !== 'boolean' && typeof v.deprecated !== 'string')
      problems.push(`${at}: deprecated must be true, false or the warning`);
  });
  if (storage !== undefined && !names.has(storage))
    problems.push(`storageVersion "${storage}" is not one of the kind's versions (${[...names].join(', ')})`);
  return problems;
}

/**
 * The versions in the order the CRD lists them (the API server's priority order: GA before beta before
 * alpha, newer first), `hub` the kind's own.
 */
export function versionInfos(
  hub: string,
  versions: readonly KindVersion[] = [],
  storage = hub,
): VersionInfo[] {
  const info = (name: string, served: boolean, deprecated: boolean | string | undefined): VersionInfo => ({
    name,
    served,
    storage: name === storage,
    hub: name === hub,
    deprecated: deprecated !== undefined && deprecated !== false,
    ...(typeof deprecated === 'string' ? { deprecationWarning: deprecated } : {}),
  });
  return [info(hub, true, false), ...versions.map((v) => info(v.name, v.served ?? true, v.deprecated))].sort(
    (a, b) => versionPriority(b.name) - versionPriority(a.name),
  );
}

/** Kubernetes' version priority: v2 > v1 > v2beta1 > v1beta2 > v1beta1 > v1alpha1. */
export function versionPriority(name: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(name);
  if (!m) return -1;
  const [, major, stage, minor] = m;
  const level = stage === undefined ? 2 : stage === 'beta' ? 1 : 0;
  return level * 1e8 + Number(major) * 1e4 + Number(minor ?? 0);
}
