/**
 * WorkQueue.addBatched: the events of one resource's children, gathered into one add of the resource
 * (the manager's enqueue of an owner).
 */
import { WorkQueue } from '../../../controller/runtime/queue';

describe('WorkQueue.addBatched', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('addBatched gathers the adds of a key within its window into one, from the first', async () => {
    const q = new WorkQueue();
    q.addBatched('owner', 100);
    jest.advanceTimersByTime(60);
    q.addBatched('owner', 100); // a second child event: no new window
    jest.advanceTimersByTime(39);
    expect(q.length).toBe(0);
    jest.advanceTimersByTime(1);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('owner');
    q.done('owner');
    jest.advanceTimersByTime(1000);
    expect(q.length).toBe(0); // one add for the two events
  });

  test('addBatched adds at once a key already queued, and after the work a key being processed', async () => {
    const q = new WorkQueue();
    q.add('queued', 'low');
    q.addBatched('queued', 100);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('queued');
    q.addBatched('queued', 100); // an event while it is reconciled: again once done, not lost
    q.done('queued');
    expect(q.length).toBe(1);
  });

  test('handing the key out ends its gathering: the reconcile reads what the events said', async () => {
    const q = new WorkQueue();
    q.addBatched('owner', 100);
    q.add('owner'); // its spec changed meanwhile
    expect(await q.get()).toBe('owner');
    q.done('owner');
    jest.advanceTimersByTime(1000);
    expect(q.length).toBe(0);
  });

  test('cancelAfter, at a reconcile’s end, keeps a gathering: its events may be newer than what it read', async () => {
    const q = new WorkQueue();
    q.add('owner');
    const key = await q.get();
    q.done(key!);
    q.addAfter('owner', 60_000, 'low'); // the recheck that reconcile asked for
    q.addBatched('owner', 100); // then a child event
    q.cancelAfter('owner'); // another reconcile's end
    jest.advanceTimersByTime(100);
    expect(q.length).toBe(1);
  });

  test('shutDown drops the gatherings', () => {
    const q = new WorkQueue();
    q.addBatched('owner', 100);
    q.shutDown();
    jest.advanceTimersByTime(1000);
    expect(q.length).toBe(0);
  });
});
