/**
 * The ring's ranges are the API server's: a list with a member's `shardSelector` (KEP-5866, on in the
 * local control plane) returns exactly the objects whose uids the ring gives that member, every object to
 * one member, and the API server echoes the selector in `shardInfo`.
 */
import { HashRing, shardSelector } from '../../../controller/sharding/ring';
import { applyList, kubectl, uniqueName } from '../../support/kubectl';

jest.setTimeout(120_000);

const LABEL = 'reconstruct.test/ring';
let run: string;
const spaces: string[] = [];

beforeAll(() => {
  run = uniqueName('ring');
  for (let i = 0; i < 30; i++) spaces.push(`${run}-${i}`);
  const objects = spaces.flatMap((ns) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { [LABEL]: run } } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'probe', namespace: ns, labels: { [LABEL]: run } },
    },
  ]);
  applyList(objects);
});
afterAll(() => {
  kubectl(['delete', 'namespace', '-l', `${LABEL}=${run}`, '--wait=false'], { allowFail: true });
});

interface ConfigMapList {
  metadata: { shardInfo?: { selector?: string } };
  items: { metadata: { uid: string } }[];
}

it('lists, for each member, the objects of exactly the namespaces the ring gives it', () => {
  const members = ['reconstruct-a', 'reconstruct-b', 'reconstruct-c'];
  const ring = new HashRing(members);
  const all = (
    JSON.parse(
      kubectl(['get', 'configmaps', '-A', '-l', `${LABEL}=${run}`, '-o', 'json']).stdout,
    ) as ConfigMapList
  ).items.map((cm) => cm.metadata.uid);
  expect(all).toHaveLength(spaces.length);
  const seen: string[] = [];
  for (const member of members) {
    const selector = shardSelector(ring.rangesOf(member))!;
    const query = new URLSearchParams({ labelSelector: `${LABEL}=${run}`, shardSelector: selector });
    const list = JSON.parse(
      kubectl(['get', '--raw', `/api/v1/configmaps?${query.toString()}`]).stdout,
    ) as ConfigMapList;
    expect(list.metadata.shardInfo?.selector).toBeTruthy();
    const listed = list.items.map((cm) => cm.metadata.uid).sort();
    expect(listed).toEqual(all.filter((uid) => ring.memberFor(uid) === member).sort());
    seen.push(...listed);
  }
  expect(seen.sort()).toEqual([...all].sort());
});
