/**
 * Drift of a kind's external object (controller/external/drift.ts), on the in-memory cluster with the
 * DnsRecord kind and its fake provider: an object changed out of band, after it was as the spec wants, is
 * put back and reported (correct, the default) or left as it is and reported (warn), with the Drifted
 * condition; a change of the spec is no drift in either mode.
 */
import { DRIFT_ANNOTATION, OBSERVE_INTERVAL_ANNOTATION, SECRET } from '../../../constructs';
import {
  FQDN,
  annotate,
  cluster,
  converge,
  kind,
  provider,
  putRecord,
  ready,
  setUp,
  tokenSecret,
} from './harness';

beforeEach(() => setUp());
afterEach(() => cluster.external.stop(0));

const drifted = () =>
  (
    cluster.any(kind, 'default', 'www')?.status as
      { conditions?: { type: string; status: string; reason: string; message: string }[] } | undefined
  )?.conditions?.find((c) => c.type === 'Drifted');
const events = (reason: string) => cluster.events.filter((e) => e.reason === reason).map((e) => e.message);

/** A record made and observed as the spec wants, then its ttl changed to 60 at the provider. */
async function changedOutOfBand(annotations: Record<string, string> = {}) {
  cluster.put(SECRET, tokenSecret());
  putRecord();
  annotate({ [OBSERVE_INTERVAL_ANNOTATION]: '10s', ...annotations });
  await converge();
  cluster.clock += 10_000;
  await converge(); // observed again: as the spec wants
  expect(ready()).toMatchObject({ status: 'True' });
  provider.change(FQDN, { ...provider.objects.get(FQDN)!, ttl: 60 });
  provider.calls.splice(0);
  cluster.clock += 10_000;
}

it('correct (the default): put back at the next observe, and reported once, with no Drifted condition', async () => {
  await changedOutOfBand();
  await converge();
  expect(provider.objects.get(FQDN)?.ttl).toBe(300);
  expect(provider.writes.map((c) => c.op)).toEqual(['put']);
  expect(events('DriftCorrected')).toEqual([
    `DNS record ${FQDN}: ttl: 60 -> 300 was changed outside the construct; set back to what the construct renders`,
  ]);
  expect(drifted()).toBeUndefined();
  cluster.clock += 10_000;
  await converge();
  expect(events('DriftCorrected')).toHaveLength(1);
});

it('warn: left as it is, Ready saying so, the Drifted condition and one Warning event naming the difference', async () => {
  await changedOutOfBand({ [DRIFT_ANNOTATION]: 'warn' });
  for (let i = 0; i < 3; i++) {
    await converge();
    cluster.clock += 10_000;
  }
  expect(provider.objects.get(FQDN)?.ttl).toBe(60);
  expect(provider.writes.map((c) => c.op)).toEqual([]);
  expect(ready()).toMatchObject({
    status: 'True',
    message: `DNS record ${FQDN} differs from the spec (ttl: 60 -> 300); left as it is (${DRIFT_ANNOTATION}: warn)`,
  });
  expect(drifted()).toMatchObject({ status: 'True', reason: 'ChangedOutside' });
  expect(drifted()?.message).toContain(`DNS record ${FQDN}: ttl: 60 -> 300`);
  expect(events('Drifted')).toHaveLength(1);

  // Put right at the provider: the condition goes at the next observe.
  provider.change(FQDN, { ...provider.objects.get(FQDN)!, ttl: 300 });
  await converge();
  expect(drifted()).toMatchObject({ status: 'False', reason: 'AsRendered' });
});

it('warn: a change of the spec is applied, not left', async () => {
  await changedOutOfBand({ [DRIFT_ANNOTATION]: 'warn' });
  await converge();
  cluster.setSpec(kind, 'default', 'www', {
    zone: 'example.com',
    name: 'www',
    values: ['192.0.2.1'],
    ttl: 600,
  });
  await converge();
  await converge();
  expect(provider.objects.get(FQDN)?.ttl).toBe(600);
  expect(ready()).toMatchObject({ status: 'True' });
  expect(events('DriftCorrected')).toEqual([]);
});
