/**
 * Offline rendering checks every child as the API server would check its apply, and names file, resource,
 * child and field for what it would refuse; `validateChildren: false` (`--no-validate-children`) renders
 * them anyway. The checks themselves: test/constructs/kit/validate-kubernetes.test.ts.
 */
import { join } from 'node:path';
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { defineKind, type ResourceProps } from '../../index';
import { krmCommand } from '../../cli/krm';
import { synthCommand } from '../../cli/synth';
import { formatProblem } from '../../synth/problem';
import { renderResources } from '../../synth/render';
import { storefront, storefrontKind } from '../fixtures/kinds/storefront';
import { capture } from '../support/capture';

const STOREFRONT = join(__dirname, '../fixtures/kinds/storefront.ts');

const render = (resources: unknown[], validateChildren?: boolean) =>
  renderResources(resources, { kinds: [storefrontKind], source: 'samples/web.yaml', validateChildren });

describe('offline child validation', () => {
  it('renders a resource whose children the API server would take', () => {
    const { problems, manifests } = render([storefront('docs', { storage: '1Gi', migrate: true })]);
    expect(problems).toEqual([]);
    expect(manifests.map((m) => `${m.kind} ${m.metadata.name}`)).toEqual([
      'Deployment docs',
      'PersistentVolumeClaim docs-data',
      'Job docs-migrate',
    ]);
  });

  it('reports each child the API server would refuse, naming file, resource, child and field, and renders the rest', () => {
    const { problems, rendered } = render([
      storefront('docs', { pullPolicy: 'Sometimes' }),
      storefront('blog', { storage: '1Gi' }),
    ]);
    expect(problems.map(formatProblem)).toEqual([
      'samples/web.yaml: Storefront/web/docs: Deployment docs: spec.template.spec.containers[0].imagePullPolicy: ' +
        'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      'samples/web.yaml: Storefront/web/docs: PersistentVolumeClaim docs-data: spec.resources[storage]: Required value',
    ]);
    expect(rendered.map((r) => r.resource.metadata.name)).toEqual(['blog']);
  });

  it("refuses a Job whose name would make its pods' job-name label longer than 63 characters", () => {
    const name = 'd'.repeat(60);
    const { problems } = render([storefront(name, { storage: '1Gi', migrate: true })]);
    expect(problems.map(formatProblem)).toEqual([
      `samples/web.yaml: Storefront/web/${name}: metadata.name: "${name}" makes Job name "${name}-migrate" 68 ` +
        'characters; the API server accepts at most 63',
    ]);
  });

  it('renders them anyway when asked not to validate children', () => {
    const { problems, manifests } = render([storefront('docs', { pullPolicy: 'Sometimes' })], false);
    expect(problems).toEqual([]);
    expect(manifests).toHaveLength(2);
  });

  it('checks a child of a known custom kind against its CRD', () => {
    // A Storefront as the child of a kind that makes Storefronts: checked against the Storefront CRD.
    class Site extends Construct {
      constructor(scope: Construct, id: string, { name }: ResourceProps<object>) {
        super(scope, id);
        const spec = { migrate: 'yes' };
        new ApiObject(this, 'app', {
          apiVersion: 'shops.example.com/v1',
          kind: 'Storefront',
          metadata: { name },
          spec,
        });
      }
    }
    const siteKind = defineKind<object>({
      apiVersion: 'sites.example.com/v1',
      kind: 'Site',
      plural: 'sites',
      schema: { description: 'Makes a Storefront.', spec: { type: 'object', properties: {} } },
      construct: Site,
      children: [
        { apiVersion: 'shops.example.com/v1', kind: 'Storefront', plural: 'storefronts', namespaced: true },
      ],
    });
    const { problems } = renderResources(
      [
        {
          apiVersion: 'sites.example.com/v1',
          kind: 'Site',
          metadata: { name: 'docs', namespace: 'web' },
          spec: {},
        },
      ],
      { kinds: [siteKind, storefrontKind], source: 'sites.yaml' },
    );
    expect(problems.map(formatProblem)).toEqual([
      // Without the API server's field-less note that it skipped the CEL rules (the kit's on metadata.name).
      'sites.yaml: Site/web/docs: Storefront docs: spec.migrate: Invalid value: "string": spec.migrate in body must be of type boolean: "string"',
    ]);
  });
});

describe('reconstruct synth and krm', () => {
  const resource =
    'apiVersion: shops.example.com/v1\nkind: Storefront\nmetadata: {name: docs, namespace: web}\nspec: {}\n';

  it('synth prints the child problem and exits 1; with --no-validate-children renders it and exits 0', async () => {
    const run = async (...flags: string[]) => {
      const [out, err] = [capture(), capture()];
      const code = await synthCommand(
        ['-', '-o', '-', '--kinds', STOREFRONT, ...flags],
        out,
        err,
        () => resource,
      );
      return { code, stdout: out.text(), stderr: err.text() };
    };
    const checked = await run();
    expect([checked.code, checked.stdout, checked.stderr]).toEqual([
      1,
      '',
      '<stdin>: Storefront/web/docs: PersistentVolumeClaim docs-data: spec.resources[storage]: Required value\n',
    ]);
    const unchecked = await run('--no-validate-children');
    expect(unchecked.code).toBe(0);
    expect(unchecked.stdout).toContain('name: docs-data');
  });

  it('krm reports it as a result on the resource, naming the child and field in the message', async () => {
    const list = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- ${resource.trimEnd().split('\n').join('\n  ')}\n`;
    const [out, err] = [capture(), capture()];
    expect(await krmCommand(['--kinds', STOREFRONT], out, err, () => list)).toBe(1);
    expect(out.text()).toContain(
      'message: "PersistentVolumeClaim docs-data: spec.resources[storage]: Required value"',
    );
  });
});
