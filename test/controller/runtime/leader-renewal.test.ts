/**
 * A ring member's renewals of its own Lease, which others write too (the ring's leader labels its state,
 * the member acknowledges generations): one request each, whatever the others wrote.
 */
import { ApiError } from '../../../controller/kube/errors';
import type { KubeRequest } from '../../../controller/kube/http';
import { LeaderElector } from '../../../controller/runtime/leader';
import { sleep } from '../../../controller/abortable';
import { answeringClient } from '../../support/answering-client';

interface Lease {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
}

/** An API server of one Lease whose labels another writer changes before every request of ours. */
function server() {
  let lease: Lease | undefined;
  let version = 1;
  const calls: string[] = [];
  const request = (req: KubeRequest): Promise<unknown> => {
    if (lease) lease = { ...lease, metadata: { ...lease.metadata, resourceVersion: String(++version) } };
    calls.push(`${req.method}${req.contentType ? ` ${req.contentType}` : ''}`);
    const body = req.body as Lease & { op?: string }[];
    if (req.method === 'GET') {
      if (!lease) return Promise.reject(new ApiError(404, 'not found', { reason: 'NotFound' }));
      return Promise.resolve(lease);
    }
    if (req.method === 'POST') {
      lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++version) } };
      return Promise.resolve(lease);
    }
    if (req.method === 'PUT') {
      if (body.metadata.resourceVersion !== lease!.metadata.resourceVersion)
        return Promise.reject(new ApiError(409, 'the object has been modified', { reason: 'Conflict' }));
      lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++version) } };
      return Promise.resolve(lease);
    }
    // A JSON patch: its test of the holder, then the new renewTime.
    const ops = req.body as { op: string; path: string; value: unknown }[];
    if (ops[0].op !== 'test' || lease!.spec.holderIdentity !== ops[0].value)
      return Promise.reject(new ApiError(422, 'test failed', { reason: 'Invalid' }));
    lease = {
      metadata: { ...lease!.metadata, resourceVersion: String(++version) },
      spec: { ...lease!.spec, renewTime: ops[1].value },
    };
    return Promise.resolve(lease);
  };
  return { client: answeringClient(request).client, calls };
}

it('renews a Lease others write with one patch that holds only while it is the holder, never a conflict', async () => {
  // GIVEN a member holding its Lease, whose labels another writer changes all the time
  const { client, calls } = server();
  const elector = new LeaderElector(client, {
    namespace: 'ns',
    name: 'member-1',
    identity: 'member-1',
    leaseDurationMs: 600,
    renewDeadlineMs: 400,
    retryPeriodMs: 50,
    sharedMetadata: true,
  });
  let lost = false;
  void elector.run({ onStartedLeading: () => undefined, onStoppedLeading: () => (lost = true) });
  // WHEN it renews a few times
  await sleep(300);
  const renewals = calls.slice(2); // the read that found no Lease, and the create
  await elector.release();
  // THEN each renewal was one JSON patch: no update refused for a stale resourceVersion, no read after it
  expect(calls.slice(0, 2)).toEqual(['GET', 'POST']);
  expect(renewals.length).toBeGreaterThanOrEqual(2);
  expect(new Set(renewals)).toEqual(new Set(['PATCH application/json-patch+json']));
  expect(lost).toBe(false);
});
