/** Waits `ms`, or less if `signal` aborts first; never rejects, so loops check the signal themselves. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A signal that aborts when any of `sources` does, or `timeoutMs` after now; `dispose` lets go of both. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * What `AbortSignal.any([...sources, AbortSignal.timeout(ms)])` means, with strong references: on Node 20 a
 * timeout signal that only a composite depends on can be garbage collected, and its timer with it, so the
 * composite never aborts (a handler's timeout that never fired under a loaded test run). Here the timer and
 * the sources' listeners hold the controller until it aborts or is disposed.
 */
export function linkedSignal(sources: readonly AbortSignal[], timeoutMs?: number): LinkedSignal {
  const controller = new AbortController();
  const abort = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  const listeners = sources.map((source) => {
    const listener = () => abort(source.reason);
    return { source, listener };
  });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')),
          timeoutMs,
        ).unref();
  function dispose() {
    if (timer) clearTimeout(timer);
    for (const { source, listener } of listeners) source.removeEventListener('abort', listener);
  }
  const aborted = sources.find((s) => s.aborted);
  if (aborted) abort(aborted.reason);
  else
    for (const { source, listener } of listeners) source.addEventListener('abort', listener, { once: true });
  return { signal: controller.signal, dispose };
}
