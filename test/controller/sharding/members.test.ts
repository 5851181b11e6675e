/** The members of a ring, read from their Leases at a given time. */
import { RING_LABEL, memberState, type MemberLease } from '../../../controller/sharding/members';

const T = Date.parse('2026-11-27T12:00:00Z');
const at = (seconds: number) => new Date(T + seconds * 1000).toISOString();

/** A member's Lease, last renewed `renewedAgo` seconds before T, for 15 s. */
const lease = (name: string, renewedAgo: number, holder: string | null = name, ring = 'r'): MemberLease => ({
  metadata: { name, labels: { [RING_LABEL]: ring } },
  spec: {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: at(-600),
    renewTime: at(-renewedAgo),
  },
});

describe('memberState', () => {
  it.each([
    [0, 'ready'],
    [14, 'ready'],
    [15, 'expired'],
    [300, 'expired'],
  ])('renewed %i s ago by the member itself: %s', (ago, state) => {
    expect(memberState(lease('m', ago), T)).toBe(state);
  });

  it('is dead once someone else holds it (the ring leader took it over), or nobody, and orphaned a minute after it expired', () => {
    expect(memberState(lease('m', 30, 'the-leader'), T)).toBe('dead');
    expect(memberState(lease('m', 5, null), T)).toBe('dead');
    expect(memberState(lease('m', 15 + 60, 'the-leader'), T)).toBe('orphaned');
  });

  it("counts the duration from when the observer saw the last renewal, on the observer's clock", () => {
    // The member's clock runs a minute ahead: its renewTime is in the observer's future.
    const skewed = lease('m', -60);
    expect(memberState(skewed, T)).toBe('ready');
    // Seen 15 s ago and not renewed since: expired, whatever its clock says.
    expect(memberState(skewed, T, T - 15_000)).toBe('expired');
    expect(memberState(skewed, T, T - 14_000)).toBe('ready');
  });

  it('takes a Lease without times for expired now', () => {
    expect(memberState({ metadata: { name: 'm' }, spec: { holderIdentity: 'm' } }, T)).toBe('expired');
  });
});
