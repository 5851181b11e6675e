/**
 * The property test of a kind's conversions, for its author's tests (and ours, for every built-in kind
 * with versions), on random valid objects of each version:
 *
 * - converted to every other version, an object is valid there, and, once the API server has applied that
 *   version's defaults, converts back to what it was (with the kit's conversion data);
 * - between a version and the hub, it also comes back without the conversion data, but for the fields
 *   the version declares it cannot say (`onlyHere`, `onlyInHub`): a conversion that drops what the other
 *   version could say is caught here, though the conversion data would have hidden it.
 */
import { sameJson } from '../constructs/kit/same-json';
import { CONVERSION_DATA_ANNOTATION } from '../constructs/kit/conversion';
import type { Kind } from '../constructs/kit/kind';
import type { CustomResource } from '../constructs/kit/resource';
import { validateResource } from '../constructs/kit/validate';
import type { KindVersion } from '../constructs/kit/versions';
import { sampleResources, seededRandom } from './schema-samples';

export interface ConversionCheckOptions {
  /** Random objects per version. @default 200 */
  readonly runs?: number;
  /** The seed of the objects: the same seed, the same objects. @default 1 */
  readonly seed?: number;
  /**
   * Objects of your own, of any of the kind's versions, checked as the random ones are (admitted by their
   * version's schema first): the cases a schema's random objects rarely reach, or the only ones when a
   * schema says more than it can generate (`runs: 0`).
   */
  readonly samples?: readonly CustomResource[];
}

/** What was checked. */
export interface ConversionCheck {
  /** Round trips made: objects times the other versions, with and without the conversion data. */
  readonly roundTrips: number;
}

type Json = Record<string, unknown>;

/** The object as JSON, without the kit's conversion data and the fields at `ignore` (dotted paths). */
function said(resource: CustomResource, ignore: readonly string[] = []): unknown {
  const json = JSON.parse(JSON.stringify(resource)) as Json & { metadata: Json };
  const annotations = json.metadata.annotations as Record<string, string> | undefined;
  if (annotations) {
    delete annotations[CONVERSION_DATA_ANNOTATION];
    if (Object.keys(annotations).length === 0) delete json.metadata.annotations;
  }
  for (const path of ignore) {
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce<unknown>((o, k) => (o as Json | undefined)?.[k], json) as
      Json | undefined;
    if (parent) delete parent[keys[keys.length - 1]];
  }
  // A status left empty by the ignored fields says nothing.
  if (json.status && Object.keys(json.status).length === 0) delete json.status;
  return json;
}

const withoutData = (resource: CustomResource): CustomResource => said(resource) as CustomResource;

/**
 * Checks every conversion of `kind` both ways on random objects (see the module's doc). Throws on the
 * first object that does not survive, naming it in both versions, with the seed that makes it again.
 */
export function checkConversions(kind: Kind, options: ConversionCheckOptions = {}): ConversionCheck {
  const runs = options.runs ?? 200;
  const seed = options.seed ?? 1;
  const hub = kind.version;
  const versions = kind.versions.map((v) => v.name);
  const spokes = new Map<string, KindVersion>(kind.otherVersions.map((v) => [v.name, v]));
  const served = (resource: CustomResource): CustomResource => {
    const { object, errors } = validateResource(kind.crd, resource);
    if (errors.length > 0) throw Object.assign(new Error('invalid'), { errors });
    return object as unknown as CustomResource;
  };
  let roundTrips = 0;
  const own = (version: string) =>
    (options.samples ?? []).filter((s) => s.apiVersion === `${kind.group}/${version}`).map(served);
  for (const from of versions) {
    const random = runs > 0 ? sampleResources(kind.crd, from, runs, seededRandom(seed)) : [];
    for (const original of [...own(from), ...random]) {
      for (const to of versions.filter((v) => v !== from)) {
        const fail = (what: string, detail: unknown): never => {
          throw new Error(
            `${kind.kind} ${from} -> ${to} (seed ${seed}): ${what}\n` +
              `object: ${JSON.stringify(original)}\n${JSON.stringify(detail)}`,
          );
        };
        const converted = kind.convert(original, `${kind.group}/${to}`);
        let there: CustomResource;
        try {
          there = served(converted);
        } catch (err) {
          return fail(`not a valid ${to} object`, { converted, errors: (err as { errors: unknown }).errors });
        }
        const back = kind.convert(there, original.apiVersion);
        if (!sameJson(said(back), said(original))) fail('came back different', { converted, back });
        roundTrips++;
        if (from !== hub && to !== hub) continue;
        // Without the conversion data: only what the spoke declares it cannot say may differ.
        const spoke = spokes.get(from === hub ? to : from);
        const ignore = from === hub ? (spoke?.onlyInHub ?? []) : (spoke?.onlyHere ?? []);
        const bare = kind.convert(withoutData(there), original.apiVersion);
        if (!sameJson(said(bare, ignore), said(original, ignore))) {
          fail(
            `came back different without the conversion data (beyond ${ignore.join(', ') || 'nothing declared'})`,
            {
              converted,
              back: bare,
            },
          );
        }
        roundTrips++;
      }
    }
  }
  return { roundTrips };
}
