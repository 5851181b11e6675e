import { EventRecorder, type EventWriter } from '../../../controller/kube/events';
import { ApiError } from '../../../controller/kube/errors';
import { recordingLogger } from '../../support/logger';

/** For a writer whose test expects creates only: a patch fails the recorder's write, loudly. */
const unexpectedPatch = () => Promise.reject(new Error('a patch where only creates were expected'));

/** A Writer whose creates wait until the test releases them, so what is in flight can be observed. */
function pausedWriter() {
  const calls: {
    namespace?: string;
    body: { metadata: { name: string }; reason: string; involvedObject: { name: string } };
  }[] = [];
  const waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const writer: EventWriter = {
    mergePatch: unexpectedPatch,
    create: (_type: unknown, namespace: string | undefined, body: unknown) => {
      calls.push({ namespace, body: body as (typeof calls)[number]['body'] });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject })).finally(
        () => inFlight--,
      );
    },
  };
  const settle = async (how: 'resolve' | 'reject' = 'resolve') => {
    const next = waiting.shift();
    if (!next) throw new Error('no create is waiting');
    if (how === 'resolve') next.resolve();
    else next.reject(new ApiError(422, 'POST events: invalid'));
    await new Promise((r) => setImmediate(r));
  };
  return { writer, calls, settle, maxInFlight: () => maxInFlight };
}

const resource = (name: string, namespace?: string) => ({
  apiVersion: 'cache.example.com/v1alpha1',
  kind: 'Memcached',
  metadata: { name, namespace, uid: `uid-${name}` },
});

describe('EventRecorder', () => {
  it('sends in the background, one at a time and in order, and drain waits for the last', async () => {
    const w = pausedWriter();
    const { log } = recordingLogger();
    const events = new EventRecorder(w.writer, log);
    for (const name of ['a', 'b', 'c']) events.emit(resource(name, 'demo'), 'Normal', 'Created', 'x');
    // emit returned at once; only the first create is on the wire.
    expect(w.calls.map((c) => c.body.involvedObject.name)).toEqual(['a']);
    let drained = false;
    const drain = events.drain().then(() => (drained = true));
    await w.settle();
    await w.settle();
    expect(drained).toBe(false);
    await w.settle();
    await drain;
    expect(w.calls.map((c) => c.body.involvedObject.name)).toEqual(['a', 'b', 'c']);
    expect(w.maxInFlight()).toBe(1);
    expect(drained).toBe(true);
  });

  it('keeps going after a create the API server refuses, and logs it', async () => {
    const w = pausedWriter();
    const { log, lines } = recordingLogger();
    const events = new EventRecorder(w.writer, log);
    events.emit(resource('a', 'demo'), 'Warning', 'ApplyFailed', 'x');
    events.emit(resource('b', 'demo'), 'Normal', 'Created', 'y');
    await w.settle('reject');
    await w.settle();
    await events.drain();
    expect(w.calls).toHaveLength(2);
    expect(lines.map((l) => [l.level, l.msg, l.fields?.name])).toEqual([
      ['warn', 'cannot record event', 'a'],
    ]);
  });

  it('tries an event again after a network fault, with backoff, before the events behind it', async () => {
    const sent: string[] = [];
    let failures = 2;
    const writer: EventWriter = {
      mergePatch: unexpectedPatch,
      create: (_t: unknown, _ns: unknown, body: { involvedObject: { name: string } }) => {
        if (failures-- > 0) return Promise.reject(new ApiError(0, 'POST events: socket hang up'));
        sent.push(body.involvedObject.name);
        return Promise.resolve({ metadata: { name: 'ev' } });
      },
    };
    const waits: number[] = [];
    const { log, lines } = recordingLogger();
    const events = new EventRecorder(writer, log, {
      retryMs: 1000,
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    events.emit(resource('a', 'demo'), 'Normal', 'Created', 'x');
    events.emit(resource('b', 'demo'), 'Normal', 'Created', 'y');
    await events.drain();
    expect(sent).toEqual(['a', 'b']);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(500);
    expect(waits[0]).toBeLessThanOrEqual(1000);
    expect(waits[1]).toBeGreaterThanOrEqual(1000);
    expect(waits[1]).toBeLessThanOrEqual(2000);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('makes one Event when the answer to its creation was lost and the try after it is refused as a duplicate', async () => {
    // The server: Events by name; the first creation is made, but its answer never arrives.
    const made = new Map<string, { count: number }>();
    let lost = 1;
    const patched: string[] = [];
    const writer: EventWriter = {
      create: (_t: unknown, _ns: unknown, body: { metadata: { name: string }; count: number }) => {
        if (made.has(body.metadata.name))
          return Promise.reject(
            new ApiError(409, `events "${body.metadata.name}" already exists`, { reason: 'AlreadyExists' }),
          );
        made.set(body.metadata.name, { count: body.count });
        if (lost-- > 0) return Promise.reject(new ApiError(0, 'POST events: socket hang up'));
        return Promise.resolve(body);
      },
      mergePatch: (_t: unknown, _ns: unknown, name: string, patch: { count: number }) => {
        patched.push(name);
        made.set(name, { count: patch.count });
        return Promise.resolve({});
      },
    };
    let clock = 1_000_000;
    const { log, lines } = recordingLogger();
    const events = new EventRecorder(writer, log, { now: () => clock, sleep: () => Promise.resolve() });
    events.emit(resource('a', 'demo'), 'Normal', 'Created', 'Created Service a');
    await events.drain();
    expect([...made.keys()]).toEqual([expect.stringMatching(/^a\.[0-9a-f]+$/)]);
    // Its repeat counts on that Event, which the recorder knows by the name it gave it.
    clock += 1000;
    events.emit(resource('a', 'demo'), 'Normal', 'Created', 'Created Service a');
    await events.drain();
    expect(patched).toEqual([...made.keys()]);
    expect([...made.values()]).toEqual([{ count: 2 }]);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('names two events about one object in the same millisecond apart', async () => {
    const w = pausedWriter();
    const events = new EventRecorder(w.writer, recordingLogger().log, { now: () => 5 });
    events.emit(resource('a', 'demo'), 'Normal', 'Created', 'x');
    events.emit(resource('a', 'demo'), 'Normal', 'Updated', 'y');
    await w.settle();
    await w.settle();
    const names = w.calls.map((c) => c.body.metadata.name);
    expect(new Set(names).size).toBe(2);
  });

  it('gives an event up after 12 tries, as client-go does, and goes on with the next', async () => {
    let tries = 0;
    const sent: string[] = [];
    const writer: EventWriter = {
      mergePatch: unexpectedPatch,
      create: (_t: unknown, _ns: unknown, body: { involvedObject: { name: string } }) => {
        if (body.involvedObject.name === 'a') {
          tries++;
          return Promise.reject(new ApiError(503, 'POST events: unavailable'));
        }
        sent.push(body.involvedObject.name);
        return Promise.resolve({ metadata: { name: 'ev' } });
      },
    };
    const { log, lines } = recordingLogger();
    const events = new EventRecorder(writer, log, { sleep: () => Promise.resolve() });
    events.emit(resource('a', 'demo'), 'Warning', 'ApplyFailed', 'x');
    events.emit(resource('b', 'demo'), 'Normal', 'Created', 'y');
    await events.drain();
    expect(tries).toBe(12);
    expect(sent).toEqual(['b']);
    expect(lines.filter((l) => l.level === 'warn').map((l) => [l.msg, l.fields?.tries])).toEqual([
      ['cannot record event', 12],
    ]);
  });

  it('counts a repeat within the window on the Event it repeats, as client-go does; a new window, a new Event', async () => {
    const writes: string[] = [];
    const names: string[] = [];
    const writer: EventWriter = {
      create: (
        _t: unknown,
        _ns: unknown,
        body: { metadata: { name: string }; reason: string; count: number; message: string },
      ) => {
        names.push(body.metadata.name);
        writes.push(`create ${body.reason} "${body.message}" count=${body.count}`);
        return Promise.resolve(body);
      },
      mergePatch: (
        _t: unknown,
        _ns: unknown,
        name: string,
        patch: { count: number; lastTimestamp: string },
      ) => {
        writes.push(`patch ${name} count=${patch.count} last=${patch.lastTimestamp}`);
        return Promise.resolve({});
      },
    };
    let now = Date.parse('2026-11-24T00:00:00Z');
    const events = new EventRecorder(writer, recordingLogger().log, { windowMs: 60_000, now: () => now });
    events.emit(resource('a', 'demo'), 'Warning', 'InvalidSpec', 'bad');
    await events.drain();
    now += 1_000;
    events.emit(resource('a', 'demo'), 'Warning', 'InvalidSpec', 'bad');
    now += 1_000;
    events.emit(resource('a', 'demo'), 'Warning', 'InvalidSpec', 'bad');
    events.emit(resource('a', 'demo'), 'Warning', 'InvalidSpec', 'worse');
    await events.drain();
    now += 60_000;
    events.emit(resource('a', 'demo'), 'Warning', 'InvalidSpec', 'bad');
    await events.drain();
    expect(new Set(names).size).toBe(3);
    expect(writes).toEqual([
      'create InvalidSpec "bad" count=1',
      `patch ${names[0]} count=2 last=2026-11-24T00:00:01.000Z`,
      `patch ${names[0]} count=3 last=2026-11-24T00:00:02.000Z`,
      'create InvalidSpec "worse" count=1',
      'create InvalidSpec "bad" count=1',
    ]);
  });

  it('sends one patch for the repeats that wait while one is in flight', async () => {
    const writes: string[] = [];
    const writer: EventWriter = {
      create: () => Promise.resolve({ metadata: { name: 'ev' } }),
      mergePatch: (_t: unknown, _ns: unknown, _name: string, patch: { count: number }) => {
        writes.push(`patch count=${patch.count}`);
        return Promise.resolve({});
      },
    };
    const events = new EventRecorder(writer, recordingLogger().log);
    events.emit(resource('a', 'demo'), 'Warning', 'ApplyFailed', 'x');
    await events.drain();
    for (let i = 0; i < 5; i++) events.emit(resource('a', 'demo'), 'Warning', 'ApplyFailed', 'x');
    await events.drain();
    expect(writes).toEqual(['patch count=2', 'patch count=6']);
  });

  it('makes a new Event with the count when the one it repeats is gone (Events live an hour)', async () => {
    const writes: string[] = [];
    const writer: EventWriter = {
      create: (_t: unknown, _ns: unknown, body: { count: number }) => {
        writes.push(`create count=${body.count}`);
        return Promise.resolve({ metadata: { name: 'ev' } });
      },
      mergePatch: () => {
        writes.push('patch');
        return Promise.reject(new ApiError(404, 'events "ev" not found'));
      },
    };
    const events = new EventRecorder(writer, recordingLogger().log);
    events.emit(resource('a', 'demo'), 'Normal', 'Created', 'x');
    await events.drain();
    events.emit(resource('a', 'demo'), 'Normal', 'Created', 'x');
    await events.drain();
    expect(writes).toEqual(['create count=1', 'patch', 'create count=2']);
  });

  it('drops what does not fit in the queue, says so, and sends the rest', async () => {
    const w = pausedWriter();
    const { log, lines } = recordingLogger();
    const events = new EventRecorder(w.writer, log, { maxPending: 2 });
    // One goes on the wire at once, two wait, the fourth and fifth are dropped.
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      events.emit(resource(name, 'demo'), 'Normal', 'Created', 'x');
    await w.settle();
    await w.settle();
    await w.settle();
    await events.drain();
    expect(w.calls.map((c) => c.body.involvedObject.name)).toEqual(['a', 'b', 'c']);
    expect(
      lines.filter((l) => l.level === 'warn').map((l) => [l.msg, l.fields?.dropped ?? l.fields?.name]),
    ).toEqual([
      ['too many events waiting; dropping', 'd'],
      ['events dropped while too many were waiting', 2],
    ]);
  });

  /** A sleep the test ends by hand, and a clock it moves. */
  function manualTime() {
    let now = 1_000_000;
    const sleeps: { ms: number; wake: () => void }[] = [];
    return {
      now: () => now,
      sleep: (ms: number) => new Promise<void>((wake) => sleeps.push({ ms, wake })),
      sleeps,
      /** Moves the clock and ends the oldest sleep; then lets the sender run. */
      wake: async (advanceMs: number) => {
        now += advanceMs;
        sleeps.shift()?.wake();
        await new Promise((r) => setImmediate(r));
      },
    };
  }

  it('while reconciles wait, sends one event per interval; once the queue is empty, the rest at once', async () => {
    const w = pausedWriter();
    const t = manualTime();
    let busy = true;
    const events = new EventRecorder(w.writer, recordingLogger().log, {
      busy: () => busy,
      busyIntervalMs: 200,
      now: t.now,
      sleep: t.sleep,
    });
    for (const name of ['a', 'b', 'c', 'd']) events.emit(resource(name, 'demo'), 'Normal', 'Created', 'x');
    // The first goes at once; the next waits for its turn, a full interval after the first was sent.
    expect(w.calls).toHaveLength(1);
    await w.settle();
    expect(w.calls).toHaveLength(1);
    expect(t.sleeps.map((x) => x.ms)).toEqual([200]);
    await t.wake(200);
    expect(w.calls).toHaveLength(2);
    await w.settle();
    expect(t.sleeps.map((x) => x.ms)).toEqual([200]);
    // The queue empties: the sleeper wakes early (its interval not over) and sends without waiting more.
    busy = false;
    await t.wake(50);
    expect(w.calls).toHaveLength(3);
    await w.settle();
    expect(w.calls).toHaveLength(4);
    await w.settle();
    await events.drain();
    expect(w.calls.map((c) => c.body.involvedObject.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(t.sleeps).toEqual([]);
  });

  it('waits no longer than the interval when the wall clock steps back', async () => {
    const w = pausedWriter();
    const t = manualTime();
    const events = new EventRecorder(w.writer, recordingLogger().log, {
      busy: () => true,
      busyIntervalMs: 200,
      now: t.now,
      sleep: t.sleep,
    });
    for (const name of ['a', 'b']) events.emit(resource(name, 'demo'), 'Normal', 'Created', 'x');
    await w.settle();
    await t.wake(-3_600_000); // an hour back; the sender wakes and asks again
    expect(t.sleeps.map((x) => x.ms)).toEqual([200]);
    await t.wake(200);
    expect(w.calls).toHaveLength(2);
    await w.settle();
    await events.drain();
  });

  it('sends Warnings before the Normal events that wait', async () => {
    const w = pausedWriter();
    const events = new EventRecorder(w.writer, recordingLogger().log);
    events.emit(resource('a', 'demo'), 'Normal', 'Created', 'x');
    events.emit(resource('b', 'demo'), 'Normal', 'Created', 'x');
    events.emit(resource('c', 'demo'), 'Warning', 'ErrResourceExists', 'x');
    while (w.calls.length < 3) await w.settle();
    await w.settle();
    await events.drain();
    expect(w.calls.map((c) => c.body.involvedObject.name)).toEqual(['a', 'c', 'b']);
  });

  it('drain sends everything at once, busy or not', async () => {
    const w = pausedWriter();
    const t = manualTime();
    const events = new EventRecorder(w.writer, recordingLogger().log, {
      busy: () => true,
      now: t.now,
      sleep: t.sleep,
    });
    for (const name of ['a', 'b', 'c']) events.emit(resource(name, 'demo'), 'Normal', 'Created', 'x');
    await w.settle();
    expect(t.sleeps).toHaveLength(1);
    const drained = events.drain();
    await t.wake(0); // the sleep in progress ends; from then on, no more waiting
    await w.settle();
    await w.settle();
    await drained;
    expect(w.calls).toHaveLength(3);
    expect(t.sleeps).toEqual([]);
  });

  it('puts the events of cluster-scoped objects in the default namespace', async () => {
    const w = pausedWriter();
    const events = new EventRecorder(w.writer, recordingLogger().log);
    events.emit(resource('pool'), 'Normal', 'Created', 'x');
    await w.settle();
    await events.drain();
    expect(w.calls[0].namespace).toBe('default');
  });
});
