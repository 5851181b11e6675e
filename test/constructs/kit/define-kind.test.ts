import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import {
  CLUSTER_ROLE,
  CONFIG_MAP,
  KIND_CATEGORY,
  NODE,
  KindDefinitionError,
  KindRegistry,
  customResourceClass,
  defineKind,
  isKind,
  synthesize,
  type ClusterView,
  type KindOptions,
  type KubeObject,
  type Readiness,
} from '../../../constructs';
import {
  Greeting,
  greetingKind,
  greetingOptions,
  greetingSchema,
  type GreetingSpec,
} from '../../fixtures/kinds/greeting';

/** The definition of the Greeting kind with `change` applied, as an author might get it wrong. */
function greetingWith(change: Record<string, unknown>): KindOptions<GreetingSpec> {
  return { ...greetingOptions, ...change };
}

function refusal(change: Record<string, unknown>): string {
  try {
    defineKind(greetingWith(change));
  } catch (err) {
    expect(err).toBeInstanceOf(KindDefinitionError);
    return (err as Error).message;
  }
  throw new Error('defineKind accepted the definition');
}

/** A view of the cluster holding `objects`, looked up by plural, namespace and name. */
function viewOf(objects: (KubeObject & { plural: string })[]): ClusterView {
  const find = (plural: string, namespace: string | undefined, name: string) =>
    objects.find(
      (o) =>
        o.plural === plural && o.metadata.name === name && (o.metadata.namespace ?? undefined) === namespace,
    );
  return {
    get: (type, namespace, name) => find(type.plural, namespace, name),
    list: (type) => objects.filter((o) => o.plural === type.plural),
    exists: (type, namespace, name) => find(type.plural, namespace, name) !== undefined,
  };
}

describe('defineKind', () => {
  describe('GIVEN an incomplete or inconsistent definition THEN it is refused naming what is wrong', () => {
    it.each([
      ['no construct', { construct: undefined }, 'construct is missing'],
      ['no schema', { schema: undefined }, 'schema is missing'],
      [
        'a spec schema that is not an object',
        { schema: { description: 'x', spec: { type: 'string' } } },
        'schema.spec must be an object',
      ],
      ['no children', { children: [] }, 'children is missing'],
      [
        'a child that is not an API kind',
        { children: [{ kind: 'ConfigMap' }] },
        'children[0] must be an ApiKind',
      ],
      ['an apiVersion without a group', { apiVersion: 'v1' }, 'apiVersion "v1" must be <group>/<version>'],
      ['a group that is not a DNS subdomain', { apiVersion: 'Greetings/v1' }, 'must be <group>/<version>'],
      [
        'a version that is not one',
        { apiVersion: 'greetings.example.com/one' },
        'version "one" must look like v1',
      ],
      ['a kind in lower case', { kind: 'greeting' }, 'kind "greeting" must be UpperCamelCase'],
      [
        'a plural in upper case',
        { plural: 'Greetings' },
        'plural "Greetings" must be a lower-case DNS label',
      ],
      [
        'a status field the kit adds',
        { schema: { ...greetingSchema, status: { conditions: { type: 'array' } } } },
        'schema.status.conditions is added by the kit',
      ],
      ['a watch without owners', { watches: [{ type: CONFIG_MAP }] }, 'watches[0].owners is missing'],
      [
        'a sync without a qualified finalizer',
        { sync: { finalizer: 'no spaces allowed', plan: () => [] } },
        'sync.finalizer "no spaces allowed" must be a qualified name',
      ],
      [
        'a permission on something that is not an API kind',
        { permissions: [{ type: 'clusterroles', verbs: ['bind'] }] },
        'permissions[0].type must be an ApiKind (e.g. CLUSTER_ROLE, or apiKind(...))',
      ],
      [
        'a permission without verbs',
        { permissions: [{ type: CLUSTER_ROLE, verbs: [] }] },
        'permissions[0].verbs is missing: name the verbs the work needs',
      ],
      [
        'a permission with a wildcard verb',
        { permissions: [{ type: NODE, verbs: ['*'] }] },
        'permissions[0].verbs: "*" grants every verb; name the ones the work needs',
      ],
      [
        'a permission with a verb Kubernetes does not have',
        { permissions: [{ type: NODE, verbs: ['label'] }] },
        'permissions[0].verbs: "label" is not a Kubernetes verb (get, list, watch,',
      ],
      [
        'a permission whose names cannot restrict its verb',
        {
          permissions: [{ type: CLUSTER_ROLE, verbs: ['bind', 'create', 'list'], resourceNames: ['admin'] }],
        },
        'permissions[0]: resourceNames cannot restrict create, list (the request names no object)',
      ],
      [
        'a permission with an empty list of names',
        { permissions: [{ type: CLUSTER_ROLE, verbs: ['bind'], resourceNames: [] }] },
        'permissions[0].resourceNames must be a non-empty list of object names',
      ],
      [
        'permissions that are not a list',
        { permissions: { type: NODE, verbs: ['patch'] } },
        'permissions must be a list of { type, verbs, resourceNames?, subresource? }',
      ],
      [
        'a column whose path is not a JSONPath',
        { schema: { ...greetingSchema, columns: [{ name: 'M', type: 'string', jsonPath: 'spec.message' }] } },
        'jsonPath must start with "."',
      ],
    ])('%s', (_what, change, message) => {
      expect(refusal(change)).toContain(message);
    });

    it('names every problem at once, and the kind', () => {
      const message = refusal({ construct: undefined, children: undefined });
      expect(message).toMatch(/^defineKind\(Greeting\): /);
      expect(message).toContain('construct is missing');
      expect(message).toContain('children is missing');
    });
  });

  describe('GIVEN a valid definition', () => {
    const crd = greetingKind.crd;

    it('THEN its CRD is named plural.group, namespaced, with the status subresource and the reconstruct category', () => {
      expect(crd.metadata.name).toBe('greetings.greetings.example.com');
      expect(crd.spec.scope).toBe('Namespaced');
      expect(crd.spec.names).toEqual({
        kind: 'Greeting',
        listKind: 'GreetingList',
        plural: 'greetings',
        singular: 'greeting',
        categories: [KIND_CATEGORY],
      });
      expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
    });

    it('THEN a kind that declares a revision shows it in a Revision column, with rollout defaults filled in', () => {
      const kind = defineKind(greetingWith({ revision: '2026.11-a', rollout: { maxInFlight: 2 } }));
      expect(kind.revision).toBe('2026.11-a');
      expect(kind.rollout).toEqual({ maxInFlight: 2, failureThreshold: 3, progressDeadlineSeconds: 600 });
      expect(kind.crd.spec.versions[0].additionalPrinterColumns?.map((c) => c.name)).toEqual([
        'Message',
        'Ready',
        'Revision',
        'Suspended',
        'Age',
      ]);
      expect(greetingKind.revision).toBeUndefined();
    });

    it('THEN a revision or rollout setting that cannot be a label value or a count is refused', () => {
      expect(refusal({ revision: 'v 2' })).toContain('revision "v 2" must be 1 to 63 letters, digits');
      expect(refusal({ revision: 'x'.repeat(64) })).toContain('must be 1 to 63');
      expect(refusal({ rollout: { maxInFlight: 0 } })).toContain(
        'rollout.maxInFlight 0 must be an integer of at least 1',
      );
      expect(refusal({ rollout: { progressDeadlineSeconds: 1.5 } })).toContain(
        'rollout.progressDeadlineSeconds 1.5',
      );
    });

    it('THEN the printer columns end with Ready, Suspended and Age, and status has observedGeneration, conditions and lastHandledReconcileAt', () => {
      const version = crd.spec.versions[0];
      expect(version.additionalPrinterColumns?.map((c) => c.name)).toEqual([
        'Message',
        'Ready',
        'Suspended',
        'Age',
      ]);
      expect(Object.keys(version.schema.openAPIV3Schema.properties?.status.properties ?? {})).toEqual([
        'observedGeneration',
        'conditions',
        'lastHandledReconcileAt',
        'lastAppliedRevision',
      ]);
    });

    it('THEN a column the kind places itself is not added twice', () => {
      const kind = defineKind(
        greetingWith({
          schema: {
            ...greetingSchema,
            columns: [
              { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
              { name: 'Message', type: 'string', jsonPath: '.spec.message' },
            ],
          },
        }),
      );
      expect(kind.crd.spec.versions[0].additionalPrinterColumns?.map((c) => c.name)).toEqual([
        'Age',
        'Message',
        'Ready',
        'Suspended',
      ]);
    });

    it('THEN it fills the schema defaults into a spec, as the API server would', () => {
      expect(greetingKind.withDefaults({})).toEqual({ message: 'hello' });
      expect(greetingKind.withDefaults({ message: 'hi' })).toEqual({ message: 'hi' });
    });

    it('THEN it builds its construct, which reads the defaults from the schema', () => {
      const [configMap] = synthesize(greetingKind, {
        apiVersion: 'greetings.example.com/v1',
        kind: 'Greeting',
        metadata: { name: 'hi', namespace: 'ns' },
        spec: {},
      });
      expect(configMap).toMatchObject({
        kind: 'ConfigMap',
        metadata: { name: 'hi-greeting', namespace: 'ns' },
        data: { message: 'hello' },
      });
    });

    it('THEN it is a kind to --kinds, and a plain object is not', () => {
      expect(isKind(greetingKind)).toBe(true);
      expect(isKind({ apiVersion: 'a.b/v1', kind: 'A', plural: 'as', namespaced: true })).toBe(false);
      expect(isKind(undefined)).toBe(false);
    });
  });

  describe('readiness', () => {
    const resource = {
      apiVersion: 'greetings.example.com/v1',
      kind: 'Greeting',
      metadata: { name: 'hi', namespace: 'ns' },
      spec: {},
    };
    const children = synthesize(greetingKind, resource);

    it('GIVEN a kind that says nothing WHEN a child is missing THEN it is not Ready and names the child', () => {
      expect(greetingKind.ready({ resource, children, view: viewOf([]) })).toEqual({
        ready: false,
        reason: 'Progressing',
        message: 'ConfigMap hi-greeting: does not exist yet',
      });
    });

    const withChild = viewOf([{ plural: 'configmaps', metadata: { name: 'hi-greeting', namespace: 'ns' } }]);

    it('GIVEN a kind that says nothing WHEN every child is ready THEN it is Ready', () => {
      expect(greetingKind.ready({ resource, children, view: withChild })).toEqual({
        ready: true,
        reason: 'Ready',
        message: 'all 1 child object(s) ready',
      });
    });

    it("GIVEN a kind with its own rule THEN the rule is asked with the children's rollup and has the last word, unless it says Ready while a child is not; status has the kind's fields", () => {
      const seen: Readiness[] = [];
      const rule = (ready: boolean) =>
        defineKind(
          greetingWith({
            ready: (_context: unknown, rollup: Readiness) => {
              seen.push(rollup);
              return ready
                ? { ready: true, reason: 'Greeted', message: 'all greeted' }
                : { ready: false, reason: 'Waiting', message: 'never' };
            },
          }),
        );
      // A child missing: a rule that says Ready does not hide it; one that says why not is heard.
      expect(rule(true).ready({ resource, children, view: viewOf([]) })).toMatchObject({
        ready: false,
        message: 'ConfigMap hi-greeting: does not exist yet',
      });
      expect(seen[0]).toMatchObject({ ready: false, message: 'ConfigMap hi-greeting: does not exist yet' });
      expect(rule(false).ready({ resource, children, view: viewOf([]) })).toMatchObject({ message: 'never' });
      expect(rule(true).ready({ resource, children, view: withChild })).toEqual({
        ready: true,
        reason: 'Greeted',
        message: 'all greeted',
      });
      const kind = defineKind(
        greetingWith({
          ready: () => ({ ready: false, reason: 'Waiting', message: 'never' }),
          status: () => ({ greeted: 3 }),
        }),
      );
      expect(kind.ready({ resource, children, view: withChild })).toEqual({
        ready: false,
        reason: 'Waiting',
        message: 'never',
      });
      expect(kind.status({ resource, children, view: viewOf([]) })).toEqual({ greeted: 3 });
      expect(greetingKind.status({ resource, children, view: viewOf([]) })).toEqual({});
    });
  });
});

describe('KindRegistry', () => {
  it('looks kinds up by apiVersion and kind', () => {
    const registry = new KindRegistry([greetingKind]);
    expect(registry.get('greetings.example.com/v1', 'Greeting')).toBe(greetingKind);
    expect(registry.get('greetings.example.com/v2', 'Greeting')).toBeUndefined();
    expect(registry.describe()).toBe('greetings.example.com/v1 Greeting');
  });

  it('refuses a kind defined twice, or two kinds with one CRD name', () => {
    expect(() => new KindRegistry([greetingKind, greetingKind])).toThrow(
      'kind greetings.example.com/v1/Greeting is defined twice',
    );
    const other = defineKind(greetingWith({ kind: 'Salute' }));
    expect(() => new KindRegistry([greetingKind, other])).toThrow(
      'share the CRD name greetings.greetings.example.com',
    );
  });
});

describe('customResourceClass', () => {
  class GreetingResource extends customResourceClass(greetingKind) {}

  it('renders the custom resource itself, typed by the spec', () => {
    const chart = new Chart(new App(), 'test', { namespace: 'ns' });
    new GreetingResource(chart, 'hi', { metadata: { name: 'hi' }, spec: { message: 'hey' } });
    expect(chart.toJson()).toEqual([
      {
        apiVersion: 'greetings.example.com/v1',
        kind: 'Greeting',
        metadata: { name: 'hi', namespace: 'ns' },
        spec: { message: 'hey' },
      },
    ]);
  });

  it('is a construct a chart can hold next to the kind construct itself', () => {
    const chart = new Chart(new App(), 'test');
    const scope = new Construct(chart, 'site');
    new Greeting(scope, 'inline', { name: 'inline', spec: {} });
    new GreetingResource(scope, 'for-the-operator', { spec: {} });
    expect(chart.toJson().map((o: { kind: string }) => o.kind)).toEqual(['ConfigMap', 'Greeting']);
  });
});

describe('a kind whose status type is an interface, as `reconstruct gen` writes it', () => {
  interface GreetingStatus {
    greeted?: number;
  }

  it('makes a custom-resource class and joins a list of kinds', () => {
    const kind = defineKind<GreetingSpec, GreetingStatus, Required<GreetingSpec>>(
      greetingWith({ status: () => ({ greeted: 1 }) }),
    );
    class Resource extends customResourceClass(kind) {}
    const chart = new Chart(new App(), 'test');
    new Resource(chart, 'r', { spec: {} });
    expect(new KindRegistry([kind]).get(kind.apiVersion, kind.kind)).toBe(kind);
    expect(kind.withDefaults({}).message).toBe('hello');
  });
});
