/**
 * A KubeClient for unit tests of code that asks the API server a few requests (a CLI command, a probe):
 * `answer` plays the server, each request is recorded in order, and a watch is refused (or, with
 * `quietWatches`, open and silent until it is stopped: for code that lists and watches, as an informer). It
 * implements the client's small interface, so what the code under test calls is checked by the compiler,
 * not cast away.
 */
import type { KubeClient } from '../../controller/kube/client';
import type { KubeRequest } from '../../controller/kube/http';
import type { WatchEvent } from '../../controller/kube/watch';

/** The server's answer to one request: the body it sends, or a rejection (an ApiError) it fails with. */
export type Answer = (req: KubeRequest) => unknown;

export function answeringClient(
  answer: Answer,
  options: { quietWatches?: boolean } = {},
): { client: KubeClient; requests: KubeRequest[] } {
  const requests: KubeRequest[] = [];
  const client: KubeClient = {
    request: async <T>(req: KubeRequest): Promise<T> => {
      requests.push(req);
      // The body is what the test's server says it is: the code under test reads it as T, as it reads JSON.
      return (await answer(req)) as T;
    },
    watch: (req: KubeRequest): AsyncIterable<WatchEvent> => {
      if (options.quietWatches) return silentUntilStopped(req.signal);
      throw new Error(`this client answers requests, not watches (${req.method} ${req.path})`);
    },
  };
  return { client, requests };
}

/** A watch that sends nothing, and ends as an aborted request does once `signal` aborts. */
async function* silentUntilStopped(signal?: AbortSignal): AsyncIterable<WatchEvent> {
  await new Promise<void>((resolve) => {
    if (!signal || signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  yield* [];
  throw new Error('the watch was stopped');
}
