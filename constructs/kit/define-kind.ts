/**
 * `defineKind`: everything about one custom-resource kind in one definition — its CRD schema, the
 * construct that synthesizes a resource's children, its status and what Ready means, what else it
 * watches, and its work on other objects (with a finalizer). The renderer, the controller, the install
 * manifests and the tests take a list of such kinds and name none. What the options are is in kind.ts,
 * their checks in kind-checks.ts, the CRD made of them in kind-crd.ts.
 */
import { Construct } from 'constructs';
import { isApiKind } from './api-kind';
import { childrenReadiness } from './child-readiness';
import { externalWork } from './external';
import { withDefaults } from './defaults';
import type { Kind, KindOptions, RolloutOptions } from './kind';
import { KindDefinitionError, problemsOf } from './kind-checks';
import { Converter } from './conversion';
import { crdOf } from './kind-crd';
import { kitView } from './kit-view';
import type { Inputs } from './inputs/declare';
import { inputValues } from './inputs/tokens';
import { MAX_NAME_LENGTH } from './resource';
import { versionInfos, type KindVersion } from './versions';

/** How a new revision reaches the resources when the kind does not say (see RolloutOptions). */
export const ROLLOUT_DEFAULTS: Required<RolloutOptions> = {
  maxInFlight: 10,
  failureThreshold: 3,
  progressDeadlineSeconds: 600,
};

/**
 * Defines a kind. Throws KindDefinitionError naming every problem of an incomplete or inconsistent
 * definition, so a mistake shows when the module loads, not in a reconcile.
 */
export function defineKind<
  Spec,
  Status extends object = object,
  Stored = Spec,
  Observed = unknown,
  Desired = unknown,
  I extends Inputs = Inputs,
>(options: KindOptions<Spec, Status, Stored, Observed, Desired, I>): Kind<Spec, Status, Stored, Observed> {
  const problems = problemsOf(options as unknown as KindOptions<unknown, object>);
  if (problems.length > 0) throw new KindDefinitionError(String(options?.kind ?? '<no kind>'), problems);
  const [group, version] = options.apiVersion.split('/');
  const crd = crdOf(options as unknown as KindOptions<unknown, object>, group, version);
  const Ctor = (options.construct ?? Construct) as new (
    scope: Construct,
    id: string,
    props: object,
  ) => Construct;
  const inputs: Inputs = options.inputs ?? {};
  const versions = (options.versions ?? []) as readonly KindVersion[];
  const converter = new Converter(group, options.kind, version, versions);
  const specSchema = options.schema.spec;
  return {
    apiVersion: options.apiVersion,
    kind: options.kind,
    plural: options.plural,
    namespaced: crd.spec.scope === 'Namespaced',
    group,
    version,
    typeName: options.typeName ?? options.kind,
    crd,
    maxNameLength: options.maxNameLength ?? MAX_NAME_LENGTH,
    schema: options.schema,
    children: options.children,
    inputs,
    watches: options.watches ?? [],
    ...(options.sync ? { sync: options.sync } : {}),
    ...(options.external ? { external: externalWork(options.external) } : {}),
    permissions: options.permissions ?? [],
    ...(options.revision !== undefined ? { revision: options.revision } : {}),
    rollout: { ...ROLLOUT_DEFAULTS, ...options.rollout },
    versions: versionInfos(version, versions, options.storageVersion),
    otherVersions: versions,
    convert: (resource, apiVersion) => converter.convert(resource, apiVersion),
    build(scope, resource, known = {}) {
      return new Ctor(scope, options.kind.toLowerCase(), {
        name: resource.metadata.name,
        spec: (resource.spec ?? {}) as Spec,
        ...(Object.keys(inputs).length > 0 ? { inputs: inputValues(inputs, known) } : {}),
      });
    },
    withDefaults: (spec) => withDefaults<Spec, Stored>(specSchema, spec),
    status: (context) => (options.status ? options.status(context) : ({} as Status)),
    ready(context) {
      const namespace = context.resource.metadata.namespace;
      const children =
        context.waiting ??
        childrenReadiness(context.children, kitView(context.view), options.children, namespace);
      if (!options.ready) return children;
      const own = options.ready(context, children);
      return own.ready && !children.ready ? children : own;
    },
  };
}

/** Whether a value is a kind defined with `defineKind` (for modules loaded with `--kinds`). */
export function isKind(value: unknown): value is Kind {
  if (!isApiKind(value)) return false;
  const k = value as Partial<Kind>;
  return typeof k.build === 'function' && typeof k.crd === 'object';
}
