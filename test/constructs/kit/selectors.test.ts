/**
 * Selectors that cannot cross resources. Two resources of one kind are synthesized by the same construct
 * code; whatever cdk8s-plus derives from construct paths must still tell them apart, and a selector that
 * would take in another resource's pods is refused, offline and in the controller alike.
 */
import { ApiObject, App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  DEPLOYMENT,
  IGNORE_FIELDS_ANNOTATION,
  SERVICE,
  childPolicy,
  defineKind,
  synthesize,
  withoutAddressLabel,
  type Manifest,
  type ResourceProps,
} from '../../../constructs/kit';
import { ChildError } from '../../../constructs/kit/child-kinds';
import { formatProblem } from '../../../synth/problem';
import { renderResources } from '../../../synth/render';
import { specError, type Labels } from '../manifests';
import { cacheCluster, cacheClusterKind, webApp, webAppKind } from '../../fixtures/kinds/web-app';

type Selector = { matchLabels?: Labels };
const spec = (m: Manifest) => m.spec as Record<string, unknown>;
const find = (children: Manifest[], kind: string) => {
  const found = children.find((c) => c.kind === kind);
  if (!found) throw new Error(`no ${kind} among ${children.map((c) => c.kind).join(', ')}`);
  return found;
};
const podLabelsOf = (workload: Manifest) =>
  (spec(workload).template as { metadata: { labels: Labels } }).metadata.labels;
/** A plain map selector (a Service's) or a LabelSelector's matchLabels, against pod labels. */
const matches = (selector: Labels | Selector, labels: Labels) => {
  const terms = Object.entries(('matchLabels' in selector ? selector.matchLabels : selector) as Labels);
  return terms.length > 0 && terms.every(([k, v]) => labels[k] === v);
};

describe('a kind written as cdk8s-plus invites, two resources in one namespace', () => {
  const docs = synthesize(webAppKind, webApp('docs', { image: 'nginx', replicas: 2 }));
  const blog = synthesize(webAppKind, webApp('blog', { image: 'nginx', replicas: 2 }));
  const selectorsOf = (children: Manifest[]): [string, Labels | Selector][] => [
    ['Service', spec(find(children, 'Service')).selector as Labels],
    ['Deployment', spec(find(children, 'Deployment')).selector as Selector],
    ['NetworkPolicy', spec(find(children, 'NetworkPolicy')).podSelector as Selector],
    ['PodDisruptionBudget', spec(find(children, 'PodDisruptionBudget')).selector as Selector],
  ];

  it.each(['Service', 'Deployment', 'NetworkPolicy', 'PodDisruptionBudget'])(
    "each %s selects its own resource's pods and not the other's",
    (kind) => {
      const docsPods = podLabelsOf(find(docs, 'Deployment'));
      const blogPods = podLabelsOf(find(blog, 'Deployment'));
      const [, docsSelector] = selectorsOf(docs).find(([k]) => k === kind)!;
      const [, blogSelector] = selectorsOf(blog).find(([k]) => k === kind)!;
      expect([matches(docsSelector, docsPods), matches(docsSelector, blogPods)]).toEqual([true, false]);
      expect([matches(blogSelector, blogPods), matches(blogSelector, docsPods)]).toEqual([true, false]);
    },
  );

  it('renders the same selectors for the same resource, whoever renders it (offline and in-cluster)', () => {
    const again = synthesize(webAppKind, webApp('docs', { image: 'nginx', replicas: 2 }, 'other'));
    expect(selectorsOf(again)).toEqual(selectorsOf(docs));
  });
});

describe('an autoscaler targeting a Deployment with replicas (cdk8s-plus refuses it on its own)', () => {
  const children = synthesize(webAppKind, webApp('docs', { image: 'nginx', replicas: 3, maxReplicas: 6 }));
  const deployment = find(children, 'Deployment');

  it('renders the Deployment with the spec replicas, for its creation, and hands them to the autoscaler', () => {
    expect(spec(deployment).replicas).toBe(3);
    expect(deployment.metadata.annotations?.[IGNORE_FIELDS_ANNOTATION]).toBe('/spec/replicas');
    expect(spec(find(children, 'HorizontalPodAutoscaler'))).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'docs' },
      maxReplicas: 6,
    });
  });

  it('keeps the fields the construct already handed to someone else', () => {
    class Scaled extends Construct {
      constructor(scope: Construct, id: string, { name }: ResourceProps<object>) {
        super(scope, id);
        const d = new kplus.Deployment(this, 'd', {
          metadata: { name },
          replicas: 4,
          containers: [{ image: 'x' }],
        });
        childPolicy(d, { ignoreFields: ['/spec/template/metadata/annotations'] });
        new kplus.HorizontalPodAutoscaler(this, 'hpa', { metadata: { name }, target: d, maxReplicas: 8 });
      }
    }
    const kind = defineKind<object>({
      apiVersion: 'x.example.com/v1',
      kind: 'Scaled',
      plural: 'scaleds',
      schema: { description: 'x', spec: { type: 'object' } },
      construct: Scaled,
      children: [
        DEPLOYMENT,
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          plural: 'horizontalpodautoscalers',
          namespaced: true,
        },
      ],
    });
    const [d] = synthesize(kind, {
      apiVersion: 'x.example.com/v1',
      kind: 'Scaled',
      metadata: { name: 'a', namespace: 'n' },
      spec: {},
    });
    expect([spec(d).replicas, d.metadata.annotations?.[IGNORE_FIELDS_ANNOTATION]]).toEqual([
      4,
      '/spec/template/metadata/annotations,/spec/replicas',
    ]);
  });

  it("works in the GUIDE's order too: the policy first, in a construct of the author's", () => {
    class Guide extends Construct {
      constructor(scope: Construct, id: string) {
        super(scope, id);
        const d = new kplus.Deployment(this, 'd', { replicas: 3, containers: [{ image: 'x' }] });
        childPolicy(d, { ignoreFields: ['/spec/replicas'] });
        new kplus.HorizontalPodAutoscaler(this, 'hpa', { target: d, maxReplicas: 5 });
      }
    }
    const chart = new Chart(new App(), 'c');
    new Guide(chart, 'g');
    const [d] = chart.toJson() as Manifest[];
    expect(spec(d).replicas).toBe(3);
  });
});

describe('a StatefulSet with the headless Service cdk8s-plus makes for it', () => {
  const a = synthesize(cacheClusterKind, cacheCluster('alpha', 3));
  const b = synthesize(cacheClusterKind, cacheCluster('beta', 3));

  it("gives each resource's headless Service a name of its own, selecting its own pods only", () => {
    const [serviceA, serviceB] = [find(a, 'Service'), find(b, 'Service')];
    expect(serviceA.metadata.name).not.toBe(serviceB.metadata.name);
    expect(serviceA.metadata.name).toContain('alpha');
    const selector = spec(serviceA).selector as Labels;
    expect([
      matches(selector, podLabelsOf(find(a, 'StatefulSet'))),
      matches(selector, podLabelsOf(find(b, 'StatefulSet'))),
    ]).toEqual([true, false]);
  });

  it("points the StatefulSet's serviceName at that Service", () => {
    expect(spec(find(a, 'StatefulSet')).serviceName).toBe(find(a, 'Service').metadata.name);
  });
});

/** A one-Deployment kind whose construct is `build`, for the refusals below. */
function kindOf(build: (scope: Construct, name: string) => void) {
  class Built extends Construct {
    constructor(scope: Construct, id: string, { name }: ResourceProps<object>) {
      super(scope, id);
      build(this, name);
    }
  }
  return defineKind<object>({
    apiVersion: 'x.example.com/v1',
    kind: 'Shop',
    plural: 'shops',
    schema: { description: 'x', spec: { type: 'object' } },
    construct: Built,
    children: [DEPLOYMENT, SERVICE],
  });
}
const shop = (name = 'web') => ({
  apiVersion: 'x.example.com/v1',
  kind: 'Shop',
  metadata: { name, namespace: 'n' },
  spec: {},
});

describe('a selector that would take in the pods of other resources', () => {
  const constantSelector = kindOf((scope, name) => {
    const d = new kplus.Deployment(scope, 'd', {
      metadata: { name },
      select: false,
      podMetadata: { labels: { app: 'shop' } },
      containers: [{ image: 'x' }],
    });
    d.select(kplus.LabelSelector.of({ labels: { app: 'shop' } }));
    const s = new kplus.Service(scope, 's', { metadata: { name }, ports: [{ port: 80 }] });
    s.selectLabel('app', 'shop');
  });

  it('is refused, naming the child, its field, the selector and what to do', () => {
    const error = specError(() => synthesize(constantSelector, shop()));
    expect([(error as ChildError).child, error.field]).toEqual(['Deployment web', 'spec.selector']);
    expect(error.detail).toBe(
      '{app: shop} would also select the pods of every other Shop in the namespace: select by the workload ' +
        '(cdk8s-plus\'s `selector: deployment`) or add a label whose value is the resource\'s name ("web") to ' +
        'the pods and the selector',
    );
  });

  it('is a problem offline, naming the file and the resource, with the valid resources still rendered', () => {
    const yaml = `apiVersion: x.example.com/v1\nkind: Shop\nmetadata: {name: web}\nspec: {}\n`;
    const result = renderResources(yaml, { kinds: [constantSelector], source: 'shop.yaml' });
    expect(result.problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /^shop\.yaml: Shop\/web: Deployment web: spec\.selector: \{app: shop\} would also select/,
      ),
    ]);
  });

  it("is accepted once a term's value is the resource's name", () => {
    const named = kindOf((scope, name) => {
      const d = new kplus.Deployment(scope, 'd', {
        metadata: { name },
        select: false,
        podMetadata: { labels: { app: 'shop', 'shop/instance': name } },
        containers: [{ image: 'x' }],
      });
      d.select(kplus.LabelSelector.of({ labels: { app: 'shop', 'shop/instance': name } }));
      new kplus.Service(scope, 's', { metadata: { name }, selector: d, ports: [{ port: 80 }] });
    });
    expect(synthesize(named, shop()).map((c) => c.kind)).toEqual(['Deployment', 'Service']);
  });

  it('is refused when withoutAddressLabel took the label the Service selects by off the pods', () => {
    const stripped = kindOf((scope, name) => {
      const d = withoutAddressLabel(
        new kplus.Deployment(scope, 'd', { metadata: { name }, containers: [{ image: 'x' }] }),
      );
      new kplus.Service(scope, 's', { metadata: { name }, selector: d, ports: [{ port: 80 }] });
    });
    const error = specError(() => synthesize(stripped, shop()));
    expect([(error as ChildError).child, error.field]).toEqual(['Deployment web', 'spec.selector']);
    expect(error.detail).toMatch(
      /selects pods by cdk8s\.io\/metadata\.addr, which none of this Shop's pods carries/,
    );
  });

  it("accepts deployment.exposeViaService(), whose Service selects each resource's own pods", () => {
    const exposed = kindOf((scope, name) => {
      new kplus.Deployment(scope, 'd', {
        metadata: { name },
        containers: [{ image: 'x', portNumber: 80 }],
      }).exposeViaService({
        name,
      });
    });
    const [web, api] = [synthesize(exposed, shop('web')), synthesize(exposed, shop('api'))];
    const selector = spec(find(web, 'Service')).selector as Labels;
    expect([
      matches(selector, podLabelsOf(find(web, 'Deployment'))),
      matches(selector, podLabelsOf(find(api, 'Deployment'))),
    ]).toEqual([true, false]);
  });

  it('leaves a selector of pods the resource does not make alone (a Service in front of another app)', () => {
    const front = kindOf((scope, name) => {
      new ApiObject(scope, 's', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec: { selector: { app: 'backend' }, ports: [{ port: 80 }] },
      });
    });
    expect(synthesize(front, shop()).map((c) => c.kind)).toEqual(['Service']);
  });
});
