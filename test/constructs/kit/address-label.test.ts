/**
 * cdk8s-plus's address label keeps the value 0.2.0 gave it wherever nothing needs it to tell resources
 * apart (constructs/kit/address-label.ts); test/upgrade holds it against 0.2.0's own rendering. These
 * are the cases that decide it.
 */
import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  DEPLOYMENT,
  defineKind,
  synthesize,
  type Manifest,
  type ResourceProps,
} from '../../../constructs/kit';
import { ADDRESS_LABEL, podLabelsOf } from '../../../constructs/kit/selectors';

/** A Deployment of cdk8s-plus's, selecting as `select` says, optionally spread by the address label. */
function kindOf(select: 'address' | 'address and name' | 'name', spread = false) {
  class App extends Construct {
    constructor(scope: Construct, id: string, props: ResourceProps<object>) {
      super(scope, id);
      const deployment = new kplus.Deployment(this, 'deployment', {
        metadata: { name: props.name },
        select: select !== 'name',
        podMetadata: { labels: { instance: props.name } },
        containers: [{ image: 'nginx', securityContext: { user: 1000 } }],
      });
      if (select !== 'address')
        deployment.select(kplus.LabelSelector.of({ labels: { instance: props.name } }));
      if (spread) {
        const value = deployment.podMetadata.getLabel(ADDRESS_LABEL)!;
        ApiObject.of(deployment).addJsonPatch(
          JsonPatch.add('/spec/template/spec/topologySpreadConstraints', [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: { [ADDRESS_LABEL]: value } },
            },
          ]),
        );
      }
    }
  }
  return defineKind<object>({
    apiVersion: 'apps.example.org/v1',
    kind: 'App',
    plural: 'apps',
    schema: { description: 'An app.', spec: { type: 'object' } },
    construct: App,
    children: [DEPLOYMENT],
  });
}

const render = (kind: ReturnType<typeof kindOf>, name: string): Manifest =>
  synthesize(kind, { apiVersion: 'apps.example.org/v1', kind: 'App', metadata: { name }, spec: {} })[0];
const address = (deployment: Manifest) => podLabelsOf(deployment)![ADDRESS_LABEL];
const selector = (deployment: Manifest) =>
  (deployment.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;

describe("cdk8s-plus's address label", () => {
  it('keeps the released value, the same for every resource, where the selector has a label of the resource too', () => {
    const kind = kindOf('address and name');
    const [web, api] = [render(kind, 'web'), render(kind, 'api')];
    expect(address(web)).toMatch(/^app-deployment-c8[0-9a-f]{6}$/);
    expect(address(api)).toBe(address(web));
    expect(selector(web)).toEqual({ [ADDRESS_LABEL]: address(web), instance: 'web' });
  });

  it("holds the resource's name where the selector tells resources apart by it alone", () => {
    const kind = kindOf('address');
    const [web, api] = [render(kind, 'web'), render(kind, 'api')];
    expect([address(web), address(api)]).toEqual([
      expect.stringMatching(/^web-app-deployment-c8/),
      expect.stringMatching(/^api-app-deployment-c8/),
    ]);
    expect(selector(web)).toEqual({ [ADDRESS_LABEL]: address(web) });
  });

  it("holds the resource's name where the value is used outside pod labels and selectors (a spread)", () => {
    const web = render(kindOf('address and name', true), 'web');
    expect(address(web)).toMatch(/^web-app-deployment-c8/);
  });
});
