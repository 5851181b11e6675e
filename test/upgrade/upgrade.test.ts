/**
 * An operator upgrade rolls no pods and moves no selector: every resource's children, rendered by this
 * build, have the pod templates and selectors the last release rendered (recorded in 0.2.0/ by
 * record-release.sh from that release's own package). The built-in kinds of 0.2.0 and two kinds as
 * authors wrote them against it (kinds.ts) are held; the one change that is meant (a selector that told
 * resources apart by nothing but cdk8s-plus's address label) is held to exactly what CHANGELOG's
 * Upgrading section says.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { builtinKinds } from '../../constructs/builtin';
import { KindRegistry, type Manifest } from '../../constructs/kit';
import { ADDRESS_LABEL, podLabelsOf, selectorsOf } from '../../constructs/kit/selectors';
import { readDocuments } from '../../synth/read';
import { renderAll } from '../../synth/render';
import { kinds } from './kinds';

const RELEASE = '0.2.0';
const HERE = __dirname;

/** The children of each resource, by `Kind/namespace/name` of the resource, as a release rendered them. */
function recorded(): Map<string, Manifest[]> {
  const out = new Map<string, Manifest[]>();
  const dir = join(HERE, RELEASE);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const source = /^# Source: \S+ (\S+)\/(\S+)$/m.exec(text)!;
    const children = parseAllDocuments(text).map((d) => d.toJSON() as Manifest);
    const namespace = children.find((c) => c.metadata.namespace)?.metadata.namespace;
    out.set([source[1], namespace, source[2]].filter(Boolean).join('/'), children);
  }
  return out;
}

/** The same resources rendered by this build. */
function rendered(): Map<string, Manifest[]> {
  const { documents, problems: read } = readDocuments([join(HERE, 'samples')]);
  const { rendered, problems } = renderAll(documents, {
    kinds: new KindRegistry([...builtinKinds, ...kinds]),
  });
  expect([...read, ...problems]).toEqual([]);
  return new Map(
    rendered.map((r) => [
      [r.resource.kind, r.resource.metadata.namespace, r.resource.metadata.name].filter(Boolean).join('/'),
      r.children,
    ]),
  );
}

/** What rolls pods or moves traffic when it changes: each child's pod template and pod selectors. */
function podFacing(children: Manifest[]): Record<string, unknown> {
  return Object.fromEntries(
    children.map((child) => [
      `${child.kind}/${child.metadata.name}`,
      {
        template: podTemplateOf(child),
        selectors: Object.fromEntries(selectorsOf(child).map((s) => [s.field, s.selector])),
      },
    ]),
  );
}

function podTemplateOf(child: Manifest): unknown {
  const spec = (child as { spec?: { template?: unknown; jobTemplate?: { spec?: { template?: unknown } } } })
    .spec;
  return spec?.template ?? spec?.jobTemplate?.spec?.template;
}

const before = recorded();
const after = rendered();

describe(`an upgrade from ${RELEASE}`, () => {
  it('renders every resource the release rendered, and the same children', () => {
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [key, children] of before) {
      const names = (list: Manifest[]) => list.map((c) => `${c.kind}/${c.metadata.name}`).sort();
      expect([key, names(after.get(key)!)]).toEqual([key, names(children)]);
    }
  });

  it.each([
    'Memcached/memcached-sample',
    'NodePool/master',
    'DatabaseManager/example-mysql',
    'Balancer/balancer-sample',
    'CacheCluster/shop/sessions',
    'CacheCluster/shop/carts',
  ])('keeps the pod templates and selectors of %s', (key) => {
    expect(before.has(key)).toBe(true);
    expect(podFacing(after.get(key)!)).toEqual(podFacing(before.get(key)!));
  });

  it("keeps the address label on a pod template that nothing selects by it, at the release's value", () => {
    // The StatefulSet and its Service select by the kind's own labels (cluster: <name>) as well, and the
    // warm-up Job by nothing: both resources' pods keep the value shared by every CacheCluster.
    const address = (key: string, kind: string) =>
      podLabelsOf(after.get(key)!.find((c) => c.kind === kind)!)![ADDRESS_LABEL];
    expect(address('CacheCluster/shop/sessions', 'StatefulSet')).toBe('cachecluster-statefulset-c847860b');
    expect(address('CacheCluster/shop/carts', 'StatefulSet')).toBe('cachecluster-statefulset-c847860b');
    expect(address('CacheCluster/shop/carts', 'Job')).toBe('cachecluster-warmup-c8d120f4');
  });

  it.each(['WebFront/shop/storefront', 'WebFront/shop/admin'])(
    'gives %s, whose Service told resources apart by the address label alone, a value of its own there and nowhere else',
    (key) => {
      const name = key.split('/')[2];
      const [old, now] = [before.get(key)!, after.get(key)!];
      const released = podLabelsOf(old.find((c) => c.kind === 'Deployment')!)![ADDRESS_LABEL];
      const own = podLabelsOf(now.find((c) => c.kind === 'Deployment')!)![ADDRESS_LABEL];
      expect(released).toBe('webfront-deployment-c88a3e97'); // every WebFront's in 0.2.0
      expect(own.startsWith(`${name}-webfront-deployment-`)).toBe(true);
      // Nothing else moved: with the one value put back, the pod templates and selectors are the release's.
      const put = JSON.parse(JSON.stringify(podFacing(now)).replaceAll(own, released)) as unknown;
      expect(put).toEqual(podFacing(old));
    },
  );
});
