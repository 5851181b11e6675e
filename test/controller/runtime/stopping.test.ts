import { Stopping } from '../../../controller/runtime/stopping';

it('exits 0 when a lease is lost after a stop was asked for (a member losing its Lease as it leaves)', async () => {
  // GIVEN a controller stopping on SIGTERM
  const stopping = new Stopping();
  stopping.request('SIGTERM');
  // WHEN its member Lease is lost while it finishes its reconciles
  stopping.loseLease('lost its member Lease');
  // THEN it stops for the SIGTERM, stops waiting for its reconciles, and exits 0
  expect(await stopping.reason).toBe('SIGTERM');
  expect(stopping.leaseLost.aborted).toBe(true);
  expect(stopping.failed).toBe(false);
  expect(stopping.exitCode).toBe(0);
});

it('exits 1 when it lost a lease without being asked to stop, whatever comes after', async () => {
  const stopping = new Stopping();
  stopping.loseLease('lost the lease');
  stopping.request('SIGTERM');
  expect(await stopping.reason).toBe('lost the lease');
  expect(stopping.exitCode).toBe(1);
});

it('exits 0 on a stop asked for, its wait for reconciles not cut short', async () => {
  const stopping = new Stopping();
  stopping.request('SIGINT');
  stopping.request('SIGTERM');
  expect(await stopping.reason).toBe('SIGINT');
  expect(stopping.leaseLost.aborted).toBe(false);
  expect(stopping.exitCode).toBe(0);
});
