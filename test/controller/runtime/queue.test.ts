import { runWorkers, WorkQueue } from '../../../controller/runtime/queue';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  test('a burst of adds of one key collapses into one entry', async () => {
    const q = new WorkQueue();
    for (const key of ['a', 'a', 'b', 'a', 'b']) q.add(key);
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  test('a key being processed is not handed out again until done, then exactly once', async () => {
    const q = new WorkQueue();
    q.add('a');
    expect(await q.get()).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.length).toBe(0);
    let second: string | undefined;
    void q.get().then((key) => (second = key));
    await tick();
    expect(second).toBeUndefined();
    q.done('a');
    await tick();
    expect(second).toBe('a');
    expect(q.length).toBe(0);
    q.done('a');
    expect(q.length).toBe(0);
  });

  test('done without a re-add does not queue the key again', async () => {
    const q = new WorkQueue();
    q.add('a');
    expect(await q.get()).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
  });

  test('get waits for an add', async () => {
    const q = new WorkQueue();
    const next = q.get();
    q.add('x');
    await expect(next).resolves.toBe('x');
  });

  describe('priorities', () => {
    test('normal keys go before low-priority keys, each priority in order', async () => {
      const q = new WorkQueue();
      q.add('refresh-1', 'low');
      q.add('new-1');
      q.add('refresh-2', 'low');
      q.add('new-2');
      expect(q.length).toBe(4);
      const order = [];
      for (let i = 0; i < 4; i++) order.push(await q.get());
      expect(order).toEqual(['new-1', 'new-2', 'refresh-1', 'refresh-2']);
    });

    test('a low-priority key added normally moves to normal priority; the reverse changes nothing', async () => {
      const q = new WorkQueue();
      q.add('a');
      q.add('b', 'low');
      q.add('b');
      q.add('a', 'low');
      q.add('c', 'low');
      expect(q.length).toBe(3);
      expect([await q.get(), await q.get(), await q.get()]).toEqual(['a', 'b', 'c']);
    });

    test('a key re-added while processing comes back at the priority it was re-added at', async () => {
      const q = new WorkQueue();
      q.add('a');
      q.add('z', 'low');
      expect(await q.get()).toBe('a');
      q.add('a', 'low');
      q.done('a');
      expect(await q.get()).toBe('z');
      expect(await q.get()).toBe('a');
      q.done('a');
      q.add('b', 'low');
      expect(await q.get()).toBe('b');
      q.add('b', 'low');
      q.add('b');
      q.add('y', 'low');
      q.done('b');
      expect(await q.get()).toBe('b');
    });

    test('overdue low-priority keys take every other turn while normal keys wait', async () => {
      let now = 0;
      const q = new WorkQueue({ maxLowWaitMs: 1000, now: () => now });
      for (const key of ['b1', 'b2', 'b3']) q.add(key, 'low');
      for (const key of ['n1', 'n2', 'n3', 'n4']) q.add(key);
      now = 1000;
      const order = [];
      for (let i = 0; i < 7; i++) order.push(await q.get());
      expect(order).toEqual(['b1', 'n1', 'b2', 'n2', 'b3', 'n3', 'n4']);
    });

    test('a low-priority key that waited maxLowWaitMs goes before normal keys', async () => {
      let now = 0;
      const q = new WorkQueue({ maxLowWaitMs: 1000, now: () => now });
      q.add('old', 'low');
      now = 500;
      q.add('young', 'low');
      q.add('new-1');
      q.add('new-2');
      q.add('new-3');
      expect(await q.get()).toBe('new-1');
      now = 1000;
      expect(await q.get()).toBe('old');
      expect(await q.get()).toBe('new-2');
      now = 1500;
      expect(await q.get()).toBe('young');
      expect(await q.get()).toBe('new-3');
    });
  });

  describe('with fake timers', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    test('addAfter adds once the delay passed; a second addAfter keeps the earlier time', () => {
      const q = new WorkQueue();
      q.addAfter('a', 100);
      q.addAfter('a', 500);
      jest.advanceTimersByTime(99);
      expect(q.length).toBe(0);
      jest.advanceTimersByTime(1);
      expect(q.length).toBe(1);
      jest.advanceTimersByTime(1000);
      expect(q.length).toBe(1);

      q.addAfter('b', 500);
      q.addAfter('b', 50);
      jest.advanceTimersByTime(50);
      expect(q.length).toBe(2);
    });

    test('addAfter keeps its priority; a waiting key asked for again at normal priority comes at it', async () => {
      const q = new WorkQueue();
      q.addAfter('later', 100, 'low');
      q.addAfter('promoted', 100, 'low');
      q.addAfter('promoted', 300);
      q.addAfter('earlier', 200);
      q.addAfter('earlier', 50, 'low');
      jest.advanceTimersByTime(100);
      q.add('now');
      expect(q.length).toBe(4);
      expect([await q.get(), await q.get(), await q.get(), await q.get()]).toEqual([
        'earlier',
        'promoted',
        'now',
        'later',
      ]);
    });

    test('addAfter with no delay adds at once', () => {
      const q = new WorkQueue();
      q.addAfter('a', 0);
      expect(q.length).toBe(1);
    });

    test('rate-limited adds back off exponentially per key, capped, and forget resets', () => {
      const q = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 100 });
      const delays: number[] = [];
      for (let i = 0; i < 6; i++) {
        q.addRateLimited('a');
        let waited = 0;
        while (q.length === 0) {
          jest.advanceTimersByTime(1);
          waited++;
        }
        delays.push(waited);
        // Take it out again so the next addRateLimited is not a no-op.
        void q.get();
        q.done('a');
      }
      expect(delays).toEqual([10, 20, 40, 80, 100, 100]);
      expect(q.numRequeues('a')).toBe(6);
      expect(q.numRequeues('b')).toBe(0);
      q.forget('a');
      expect(q.numRequeues('a')).toBe(0);
      expect(q.backoff(0)).toBe(10);
    });

    test('the backoff cap holds for very many failures', () => {
      const q = new WorkQueue();
      expect(q.backoff(0)).toBe(5);
      expect(q.backoff(3)).toBe(40);
      expect(q.backoff(5000)).toBe(300_000);
    });
  });

  test('shutDown: adds are ignored, queued keys are still handed out, then undefined', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.addAfter('c', 10);
    q.shutDown();
    q.add('d');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(await q.get()).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(q.length).toBe(0);
  });

  test('shutDown wakes a waiting get', async () => {
    const q = new WorkQueue();
    const next = q.get();
    q.shutDown();
    await expect(next).resolves.toBeUndefined();
  });

  test('drain resolves once no key is being processed', async () => {
    const q = new WorkQueue();
    await q.drain();
    q.add('a');
    q.add('b');
    const a = await q.get();
    const b = await q.get();
    let drained = false;
    void q.drain().then(() => (drained = true));
    q.done(a!);
    await tick();
    expect(drained).toBe(false);
    q.done(b!);
    await tick();
    expect(drained).toBe(true);
  });
});

describe('runWorkers', () => {
  test('never processes one key in two workers at once, and processes every key', async () => {
    const q = new WorkQueue();
    const running = new Set<string>();
    const seen = new Map<string, number>();
    let overlap = false;
    const done = runWorkers(
      q,
      4,
      async (key) => {
        if (running.has(key)) overlap = true;
        running.add(key);
        seen.set(key, (seen.get(key) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running.delete(key);
      },
      () => undefined,
    );
    for (let round = 0; round < 20; round++) {
      for (const key of ['a', 'b', 'c']) q.add(key);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await new Promise((resolve) => setTimeout(resolve, 30));
    q.shutDown();
    await done;
    expect(overlap).toBe(false);
    expect([...seen.keys()].sort()).toEqual(['a', 'b', 'c']);
    // Bursts collapsed: far fewer runs than adds.
    for (const n of seen.values()) expect(n).toBeLessThan(20);
  });

  test('a failure is reported and retried with backoff; success forgets the backoff', async () => {
    const q = new WorkQueue({ baseDelayMs: 1, maxDelayMs: 5 });
    let attempts = 0;
    const errors: string[] = [];
    const requeuesSeen: number[] = [];
    const done = runWorkers(
      q,
      2,
      (key) => {
        attempts++;
        requeuesSeen.push(q.numRequeues(key));
        if (attempts < 4) return Promise.reject(new Error(`boom ${attempts}`));
        q.shutDown();
        return Promise.resolve();
      },
      (key, err) => errors.push(`${key}: ${(err as Error).message}`),
    );
    q.add('k');
    await done;
    expect(errors).toEqual(['k: boom 1', 'k: boom 2', 'k: boom 3']);
    expect(requeuesSeen).toEqual([0, 1, 2, 3]);
    expect(q.numRequeues('k')).toBe(0);
  });

  test('requeueAfterMs brings the key back after the delay', async () => {
    const q = new WorkQueue();
    const times: number[] = [];
    const done = runWorkers(
      q,
      1,
      () => {
        times.push(Date.now());
        if (times.length === 2) q.shutDown();
        return Promise.resolve({ requeueAfterMs: 30 });
      },
      () => undefined,
    );
    q.add('k');
    await done;
    expect(times).toHaveLength(2);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(25);
  });

  test('a success without a requeue drops the recheck an earlier run asked for (a converged key stays quiet)', async () => {
    const q = new WorkQueue();
    let runs = 0;
    const done = runWorkers(
      q,
      1,
      () => {
        runs++;
        // Not ready yet: a look in 30 ms. Then a change brings it back at once, and it is converged.
        return Promise.resolve(runs === 1 ? { requeueAfterMs: 30 } : undefined);
      },
      () => undefined,
    );
    q.add('k');
    await new Promise((resolve) => setTimeout(resolve, 5));
    q.add('k');
    await new Promise((resolve) => setTimeout(resolve, 60));
    q.shutDown();
    await done;
    expect(runs).toBe(2);
  });

  test('a throwing error reporter does not stop the worker', async () => {
    const q = new WorkQueue({ baseDelayMs: 1 });
    let calls = 0;
    const done = runWorkers(
      q,
      1,
      () => {
        calls++;
        if (calls === 1) return Promise.reject(new Error('first'));
        q.shutDown();
        return Promise.resolve();
      },
      () => {
        throw new Error('reporter broke');
      },
    );
    q.add('k');
    await done;
    expect(calls).toBe(2);
  });

  test('resolves after shutDown once in-flight work finished', async () => {
    const q = new WorkQueue();
    let finished = false;
    const done = runWorkers(
      q,
      3,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished = true;
      },
      () => undefined,
    );
    q.add('a');
    await tick();
    q.shutDown();
    await done;
    expect(finished).toBe(true);
  });
});

describe('WorkQueue metrics (client-go’s workqueue_*)', () => {
  it('tells its observer of each new key, wait, piece of work and retry, and reports work in progress', async () => {
    let now = 1_000;
    const seen: string[] = [];
    const queue = new WorkQueue({
      now: () => now,
      baseDelayMs: 1,
      observer: {
        added: () => seen.push('added'),
        waited: (s) => seen.push(`waited ${s}`),
        worked: (s) => seen.push(`worked ${s}`),
        retried: () => seen.push('retried'),
      },
    });
    queue.add('a');
    queue.add('a'); // already queued: not a new add
    now += 250;
    const key = await queue.get();
    now += 2_000;
    expect(queue.inProgress()).toEqual({ unfinishedSeconds: 2, longestSeconds: 2 });
    queue.addRateLimited('a');
    queue.done(key!);
    expect(queue.inProgress()).toEqual({ unfinishedSeconds: 0, longestSeconds: 0 });
    expect(seen).toEqual(['added', 'waited 0.25', 'retried', 'worked 2']);
    queue.shutDown();
  });
});
