/**
 * The synthesize phase's memory of a resource's children, and the labels a resource passes on to them (a
 * shard's, `--watch-label-selector`): on every child, rendered again when they change.
 */
import { memcachedKind } from '../../../constructs/memcached';
import type { CustomResource } from '../../../constructs/kit';
import { Syntheses } from '../../../controller/reconcile/synthesize';

const KEY = 'ns/cache';
const memcached = (labels: Record<string, string>, generation = 1): CustomResource => ({
  apiVersion: memcachedKind.apiVersion,
  kind: memcachedKind.kind,
  metadata: { name: 'cache', namespace: 'ns', uid: 'u1', generation, labels },
  spec: { size: 1 },
});
const labelsOf = (syntheses: Syntheses, resource: CustomResource) =>
  syntheses.intents(memcachedKind, KEY, resource).map((i) => i.applied.metadata.labels ?? {});

describe('Syntheses', () => {
  it('passes the values of the named label keys the resource has on to every child, and no others', () => {
    const syntheses = new Syntheses(['sharding.fluxcd.io/key', 'absent']);
    const labels = labelsOf(syntheses, memcached({ 'sharding.fluxcd.io/key': 'shard1', team: 'a' }));
    expect(labels.length).toBeGreaterThan(0);
    for (const l of labels) {
      expect(l['sharding.fluxcd.io/key']).toBe('shard1');
      expect(l).not.toHaveProperty('team');
      expect(l).not.toHaveProperty('absent');
    }
  });

  it('renders again when those labels change, though the generation does not', () => {
    const syntheses = new Syntheses(['sharding.fluxcd.io/key']);
    const first = syntheses.intents(memcachedKind, KEY, memcached({ 'sharding.fluxcd.io/key': 'shard1' }));
    expect(syntheses.intents(memcachedKind, KEY, memcached({ 'sharding.fluxcd.io/key': 'shard1' }))).toBe(
      first,
    );
    const moved = labelsOf(syntheses, memcached({ 'sharding.fluxcd.io/key': 'shard2' }));
    expect(moved.every((l) => l['sharding.fluxcd.io/key'] === 'shard2')).toBe(true);
    const unlabelled = labelsOf(syntheses, memcached({}));
    expect(unlabelled.every((l) => !('sharding.fluxcd.io/key' in l))).toBe(true);
  });

  it('passes nothing on without keys', () => {
    const plain = labelsOf(new Syntheses(), memcached({ 'sharding.fluxcd.io/key': 'shard1' }));
    expect(plain.every((l) => !('sharding.fluxcd.io/key' in l))).toBe(true);
  });
});
