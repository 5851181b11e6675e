/**
 * `bench:peer --same-work` runs reconstruct with a Memcached that does the Go peer's work. That comparison
 * holds only while the kind takes the same resources as the built-in one and makes just their Deployment.
 */
import { kinds, peerWorkMemcachedKind } from '../../bench/controller/peer-work-kind';
import { memcachedKind, synthesize } from '../../constructs';
import { memcached, OWNER } from '../../bench/synth/resources';

describe("the peer's-work Memcached of bench:peer --same-work", () => {
  it('has the built-in kind’s CRD, so the same resources are admitted', () => {
    expect(kinds).toEqual([peerWorkMemcachedKind]);
    expect(peerWorkMemcachedKind.crd).toEqual(memcachedKind.crd);
  });

  it('makes the built-in Deployment and nothing else', () => {
    for (const i of [0, 1, 7]) {
      const builtin = synthesize(memcachedKind, memcached(i), { owner: OWNER, admitted: true });
      const peerWork = synthesize(peerWorkMemcachedKind, memcached(i), { owner: OWNER, admitted: true });
      expect(builtin.map((c) => c.kind)).toEqual(['Deployment', 'Service']);
      expect(peerWork).toEqual(builtin.filter((c) => c.kind === 'Deployment'));
    }
  });
});
