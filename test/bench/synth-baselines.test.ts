/**
 * bench:synth rates each kind against a baseline that builds the same children by hand with cdk8s-plus-27
 * and cdk8s (bench/synth/baselines.ts). The ratio means something only while the baseline builds what the
 * kind builds: these tests hold each baseline to its kind's `synthesize()` output, resource by resource.
 */
import { synthCases } from '../../bench/synth/cases';
import type { Manifest } from '../../constructs';

/**
 * Consecutive resources enough for every combination of the optional fields in each kind's mix (the
 * longest cycle is a MySQL Cluster's: 9 member counts by 5 versions by 2 password Secrets is 90).
 */
const INDEXES = Array.from({ length: 100 }, (_, i) => i);

const identity = (m: Manifest) =>
  `${m.apiVersion} ${m.kind} ${m.metadata.namespace ?? '-'}/${m.metadata.name}`;

/** The kit's child-policy annotations, ours and Flux's equivalents (constructs/kit/child-policy.ts). */
const POLICY_ANNOTATION_PREFIXES = ['reconstruct.dev/', 'kustomize.toolkit.fluxcd.io/'];

/**
 * The children as a baseline can build them, in a stable order. The one difference the baselines keep is
 * the kit's child policies, stored as annotations: a MySQL Cluster's generated root password Secret is
 * create-only with a password the controller generates once (and says what to do offline). A hand-written
 * controller has no such policies, so its Secret carries none of these annotations; everything else,
 * including the labels and the ownerReferences, is the same.
 */
function withoutPolicies(children: Manifest[]): Manifest[] {
  return children
    .map((child) => {
      const kept = Object.entries(child.metadata.annotations ?? {}).filter(
        ([key]) => !POLICY_ANNOTATION_PREFIXES.some((prefix) => key.startsWith(prefix)),
      );
      const metadata = { ...child.metadata };
      delete metadata.annotations;
      if (kept.length > 0) metadata.annotations = Object.fromEntries(kept);
      return { ...child, metadata };
    })
    .sort((a, b) => identity(a).localeCompare(identity(b)));
}

describe.each(synthCases)('the bench:synth baseline of $name', (c) => {
  it('builds the same objects as the kind: apiVersion, kind, namespace and name', () => {
    for (const i of INDEXES) {
      // WHEN the kind and its baseline build the children of the same resource
      const kind = c.synthesize(i).map(identity).sort();
      const baseline = c.baseline(i).map(identity).sort();
      // THEN they are the same objects
      expect({ resource: i, objects: baseline }).toEqual({ resource: i, objects: kind });
    }
  });

  it('with the same fields and values, child policies aside', () => {
    for (const i of INDEXES) {
      const kind = withoutPolicies(c.synthesize(i));
      const baseline = withoutPolicies(c.baseline(i));
      expect({ resource: i, children: baseline }).toStrictEqual({ resource: i, children: kind });
    }
  });
});

it('the MySQL Cluster baseline leaves out only the generated Secret’s policy annotations', () => {
  // GIVEN a MySQL Cluster without a password Secret of its own (odd indexes), whose Secret the kit generates
  const mysql = synthCases.find((c) => c.name === 'MysqlCluster');
  const secret = (children: Manifest[]) => children.find((m) => m.kind === 'Secret');
  // THEN the kind's Secret carries the kit's policy annotations and the baseline's carries none
  expect(secret(mysql?.synthesize(1) ?? [])?.metadata.annotations).toMatchObject({
    'reconstruct.dev/create-only': 'true',
  });
  expect(secret(mysql?.baseline(1) ?? [])?.metadata).not.toHaveProperty('annotations');
});
