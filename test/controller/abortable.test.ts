import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { linkedSignal } from '../../controller/abortable';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function abortedWithin(signal: AbortSignal, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('linkedSignal', () => {
  it('aborts at its timeout even when garbage is collected meanwhile (AbortSignal.timeout in AbortSignal.any may not)', async () => {
    const stop = new AbortController();
    const { signal } = linkedSignal([stop.signal], 30);
    const aborted = abortedWithin(signal, 2_000);
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await aborted).toBe(true);
    expect((signal.reason as Error).name).toBe('TimeoutError');
    expect(stop.signal.aborted).toBe(false);
  });

  it('aborts when a source does, with its reason', () => {
    const stop = new AbortController();
    const { signal } = linkedSignal([new AbortController().signal, stop.signal], 60_000);
    stop.abort(new Error('stopping'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('stopping');
  });

  it('is aborted at once when a source already is', () => {
    expect(linkedSignal([AbortSignal.abort('gone')]).signal.reason).toBe('gone');
  });

  it('once disposed, neither a source nor the timeout aborts it', async () => {
    const stop = new AbortController();
    const linked = linkedSignal([stop.signal], 10);
    linked.dispose();
    stop.abort();
    expect(await abortedWithin(linked.signal, 50)).toBe(false);
  });
});
