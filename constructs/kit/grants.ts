/**
 * What the controller does with the kinds it runs, as grants: per resource, the verbs its code uses on it
 * (the kinds' resources, children, extra watches and finalizers), plus what each kind declares its own work
 * needs (`permissions`: a sync's patches, `bind` on a ClusterRole it hands out). The install turns them into
 * RBAC rules (controller/install/permissions.ts); a reconcile asks `kindMay` before a sync's patch.
 * docs/RBAC.md says which code path uses each verb.
 */
import {
  CONFIG_MAP,
  CUSTOM_RESOURCE_DEFINITION,
  EVENT,
  POD,
  SECRET,
  groupOf,
  isWriteOnly,
  type ApiKind,
} from './api-kind';
import { saysWhyStuck } from './pod-trouble';
import type { Kind } from './kind';
import { pollsInput } from './inputs/resolve';

/** Verbs on one resource of one API group: of every object, or of the named ones only. */
export interface Grant {
  readonly type: ApiKind;
  /** The resource, or `<resource>/<subresource>`. */
  readonly resource: string;
  readonly verbs: ReadonlySet<string>;
  /** Only these objects, sorted; all of the resource when empty. */
  readonly names: readonly string[];
}

/** Every grant the controller needs for `kinds`, one per group, resource and the names it is limited to. */
export function kindGrants(kinds: readonly Kind[]): Grant[] {
  const found = new Map<string, { type: ApiKind; resource: string; verbs: Set<string>; names: string[] }>();
  const grant = (
    type: ApiKind,
    resource: string,
    verbs: readonly string[],
    names: readonly string[] = [],
  ) => {
    const sorted = [...new Set(names)].sort();
    const key = `${groupOf(type)}\u0000${resource}\u0000${sorted.join('\u0000')}`;
    const entry = found.get(key) ?? { type, resource, verbs: new Set<string>(), names: sorted };
    verbs.forEach((v) => entry.verbs.add(v));
    found.set(key, entry);
  };
  for (const kind of kinds) {
    // The informer lists and watches the resources; nothing reads one by name.
    grant(kind, kind.plural, ['list', 'watch']);
    // A merge patch of the resource adds and releases a finalizer: a kind with a sync's, and the one that
    // holds a resource whose children wait for each other until they are deleted in order (any kind's
    // construct may ask for waitFor).
    grant(kind, kind.plural, ['patch']);
    // Status is server-side applied to the status subresource.
    grant(kind, `${kind.plural}/status`, ['patch']);
    // Children's ownerReferences set blockOwnerDeletion, which the OwnerReferencesPermissionEnforcement
    // admission plugin allows only to who may update the owner's finalizers.
    if (kind.children.length > 0) grant(kind, `${kind.plural}/finalizers`, ['update']);
    for (const child of kind.children) {
      // Write-only: created (POST), deleted by uid when no longer wanted; never read, never cached.
      if (isWriteOnly(child)) grant(child, child.plural, ['create', 'delete']);
      // list, watch: the caches (ours by label, everyone else's by metadata only: the same verbs).
      // get: one read of a name taken by an object not ours, or before re-creating a child with ignored
      // fields. create: create-only children (POST), and a server-side apply that makes its object (the
      // API server authorizes it as a create as well). patch: server-side apply, adoption, release of a
      // retained child. delete: pruning, with a uid precondition. Nothing is ever updated (PUT).
      else grant(child, child.plural, ['get', 'list', 'watch', 'create', 'patch', 'delete']);
    }
    // External work reads its Secrets by name when a handler runs (controller/external/secrets.ts): `get`
    // of the names it can know, and of any name where a field of the spec names it; never list or watch.
    for (const secret of Object.values(kind.external?.secrets ?? {})) {
      const names = typeof secret.name === 'string' ? [secret.name] : [];
      grant(SECRET, SECRET.plural, ['get'], names);
    }
    // Inputs read objects that are not children by name (controller/inputs): a `get`, then a watch of
    // that one object (list and watch with `fieldSelector=metadata.name=NAME`, which the API server
    // authorizes as a request for that name), of the name where the kind fixes it. A Secret the spec names
    // is not watched but read again every 30 s: `get` only, as a list or watch of unnamed Secrets would be
    // a read of every one. A child's field comes from the child caches.
    for (const input of Object.values(kind.inputs)) {
      if (input.from === 'child' || input.from === 'external') continue;
      const type = input.from === 'configMap' ? CONFIG_MAP : input.from === 'secret' ? SECRET : input.type;
      const fixed = typeof input.name === 'string';
      const verbs = pollsInput(input) ? ['get'] : ['get', 'list', 'watch'];
      grant(type, type.plural, verbs, fixed ? [input.name] : []);
    }
    // Extra watches are caches: read only. What a sync writes, the kind declares.
    for (const watch of kind.watches) grant(watch.type, watch.type.plural, ['list', 'watch']);
    for (const p of kind.permissions) {
      const resource = p.subresource ? `${p.type.plural}/${p.subresource}` : p.type.plural;
      grant(p.type, resource, p.verbs, p.resourceNames);
    }
  }
  // Why a stuck child is stuck (controller/reconcile/troubles.ts): its pods and events, listed on demand.
  if (kinds.some((k) => k.children.some((c) => !isWriteOnly(c) && saysWhyStuck(c)))) {
    grant(POD, POD.plural, ['list']);
    grant(EVENT, EVENT.plural, ['list']);
  }
  // Events are created, and a repeat within the aggregation window patches the count (controller/kube/events.ts).
  if (kinds.length > 0) grant(EVENT, EVENT.plural, ['create', 'patch']);
  // The conversion webhook points the CRDs of kinds with several versions at itself and writes their
  // caBundle (controller/runtime/conversion-webhook.ts): those CRDs only.
  const converting = kinds.filter((k) => k.versions.length > 1).map((k) => k.crd.metadata.name);
  if (converting.length > 0)
    grant(CUSTOM_RESOURCE_DEFINITION, CUSTOM_RESOURCE_DEFINITION.plural, ['get', 'patch'], converting);
  // The CRDs' names (a metadata-only watch): a kind's CRD installed after the controller starts is picked
  // up at once (controller/runtime/manager.ts). A namespaced install leaves it out (scopedRules).
  if (kinds.length > 0)
    grant(CUSTOM_RESOURCE_DEFINITION, CUSTOM_RESOURCE_DEFINITION.plural, ['list', 'watch']);
  return [...found.values()];
}

/**
 * Whether the grants of `kind` let the controller `verb` the object `name` of `type`: a sync's patch is
 * checked before it is sent, so that a kind that forgot to declare it fails in its unit tests, naming
 * what to declare, rather than with a 403 in a cluster.
 */
export function kindMay(kind: Kind, type: ApiKind, verb: string, name: string): boolean {
  return kindGrants([kind]).some(
    (g) =>
      groupOf(g.type) === groupOf(type) &&
      g.resource === type.plural &&
      g.verbs.has(verb) &&
      (g.names.length === 0 || g.names.includes(name)),
  );
}
