/**
 * Every version of one object the API server serves from the moment the watch is on, by a watch of its
 * collection with a field selector on its name (so that it may start before the object exists), through
 * `kubectl get --raw`. `established` resolves once the API server says the watch is on (the bookmark that
 * ends its initial events): a test that waits for it before it acts misses no version, however fast the
 * controller writes, where polling misses a status that lasts less than a poll.
 */
import { spawn } from 'node:child_process';
import { waitFor } from './kubectl';

export interface Versions<T> {
  /** Resolves once the watch is on. */
  established(): Promise<unknown>;
  /** The first version seen that passes `test`, waiting for it up to `timeoutMs`. */
  first(what: string, test: (o: T) => boolean, timeoutMs?: number): Promise<T>;
  /** Every version seen so far, in order. */
  all(): readonly T[];
  stop(): void;
}

/** A watch of `name` in the collection `apiPath` (`/apis/GROUP/VERSION/namespaces/NS/PLURAL`, `/api/v1/...`). */
export function versions<T extends { metadata: { annotations?: Record<string, string> } }>(
  apiPath: string,
  name: string,
): Versions<T> {
  const seen: T[] = [];
  const query = new URLSearchParams({
    watch: '1',
    fieldSelector: `metadata.name=${name}`,
    sendInitialEvents: 'true',
    allowWatchBookmarks: 'true',
    resourceVersionMatch: 'NotOlderThan',
  });
  const proc = spawn('kubectl', ['get', '--raw', `${apiPath}?${query.toString()}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let on = false;
  let buffer = '';
  let errors = '';
  proc.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  proc.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const event = JSON.parse(buffer.slice(0, end)) as { type: string; object: T };
      buffer = buffer.slice(end + 1);
      if (event.type !== 'BOOKMARK') seen.push(event.object);
      else on ||= event.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true';
    }
  });
  const ended = () => {
    if (proc.exitCode !== null) throw new Error(`the watch of ${name} ended: ${errors}`);
  };
  return {
    established: () => waitFor(() => (ended(), on), { what: `a watch of ${name}` }),
    first: (what, test, timeoutMs = 120_000) =>
      waitFor(() => (ended(), seen.find(test)), { what: `${name}: ${what}`, timeoutMs }),
    all: () => seen,
    stop: () => proc.kill(),
  };
}
