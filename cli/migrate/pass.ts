/**
 * The rewrite pass of `reconstruct migrate`, for API servers that do not serve StorageVersionMigration:
 * every object of a custom resource read (500 a page) and written back as it was read, so that the API
 * server encodes it anew in the CRD's storage version; and the progress it prints.
 *
 * The pass is resumable by running it again: the API server writes nothing for an update whose encoding
 * is the bytes it already stores (an object already in the storage version keeps its resourceVersion), so
 * a second run costs a read and a no-op update per object, and rewrites only what the first left.
 */
import type { ApiKind, KubeObject } from '../../constructs/kit';
import { sleep } from '../../controller/abortable';
import type { KubeClient } from '../../controller/kube/client';
import {
  isConflict,
  isGone,
  isInternalError,
  isNotFound,
  isObject,
  isTransient,
} from '../../controller/kube/errors';
import { resourcePath } from '../../controller/kube/paths';

const PAGE_SIZE = 500;
/** Updates in flight at once: enough to keep the API server busy, few enough to leave it to others. */
const WORKERS = 8;
/** Tries of one object, when it keeps changing under us or the connection fails. */
const ATTEMPTS = 5;
const FIELD_MANAGER = 'reconstruct-migrate';

/** What a pass did. `unchanged`: already stored in the storage version (the update wrote nothing). */
export interface PassCounts {
  total: number;
  rewritten: number;
  unchanged: number;
  /** Deleted between the list and the update. */
  gone: number;
  failed: number;
}

/** An object the pass could not rewrite, and the API server's reason. */
export interface PassFailure {
  readonly object: string;
  readonly message: string;
}

/** `Widget ns/name`, as the commands name a resource. */
export const objectLabel = (o: KubeObject): string =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

/** What the API server said (the Status message), without the request our errors start with. */
export function serverMessage(err: unknown): string {
  const body = (err as { body?: unknown }).body;
  if (isObject(body) && typeof body.message === 'string' && body.message) return body.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Rewrites every object of `type` (all namespaces) through its REST path: each update carries the
 * resourceVersion it was read with; a conflict reads the object again and retries (someone wrote it, so it
 * may be in the storage version already, but only an update tells), a NotFound skips it. A failure of one
 * object goes to `failed` and the pass goes on. Throws when a page cannot be listed.
 */
export async function rewriteAll(
  client: Pick<KubeClient, 'request'>,
  type: ApiKind,
  progress: Progress,
  failed: (failure: PassFailure) => void,
): Promise<PassCounts> {
  const counts: PassCounts = { total: 0, rewritten: 0, unchanged: 0, gone: 0, failed: 0 };
  let handled = 0;
  let cont: string | undefined;
  let first = true;
  do {
    const page = await listPage(client, type, cont);
    if (first) progress.start(page.metadata?.continue ? total(page) : page.items.length);
    first = false;
    counts.total += page.items.length;
    await eachLimited(page.items, WORKERS, async (object) => {
      object.apiVersion ??= type.apiVersion;
      object.kind ??= type.kind;
      try {
        counts[await rewriteOne(client, type, object)]++;
      } catch (err) {
        counts.failed++;
        progress.clear();
        failed({ object: objectLabel(object), message: serverMessage(err) });
      }
      progress.tick(++handled);
    });
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return counts;
}

/** How many objects the list will give in all, when the server says (it does for a list without selectors). */
function total(page: ListPage): number | undefined {
  const remaining = page.metadata?.remainingItemCount;
  return remaining === undefined ? undefined : page.items.length + remaining;
}

interface ListPage {
  metadata?: { continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

/**
 * One page. A continue token that expired (410: the list's snapshot was compacted away) is replaced by the
 * one the Status carries, which goes on from the same place in a newer snapshot: nothing is missed, and an
 * object seen twice is rewritten twice, which is harmless.
 */
async function listPage(
  client: Pick<KubeClient, 'request'>,
  type: ApiKind,
  cont: string | undefined,
): Promise<ListPage> {
  const request = (token: string | undefined) =>
    client.request<ListPage>({
      method: 'GET',
      path: resourcePath(type),
      query: { limit: PAGE_SIZE, continue: token },
    });
  try {
    return await request(cont);
  } catch (err) {
    const body = (err as { body?: { metadata?: { continue?: string } } }).body;
    const fresh = isObject(body) ? body.metadata?.continue : undefined;
    if (!isGone(err) || !cont || !fresh) throw err;
    return request(fresh);
  }
}

/** Writes `object` back as it was read; whether that rewrote it, found it stored in the version already, or gone. */
async function rewriteOne(
  client: Pick<KubeClient, 'request'>,
  type: ApiKind,
  object: KubeObject,
): Promise<'rewritten' | 'unchanged' | 'gone'> {
  const path = resourcePath(type, object.metadata.namespace, object.metadata.name);
  let current = object;
  for (let attempt = 1; ; attempt++) {
    try {
      const written = await client.request<KubeObject>({
        method: 'PUT',
        path,
        query: { fieldManager: FIELD_MANAGER },
        body: current,
      });
      return written.metadata.resourceVersion === current.metadata.resourceVersion
        ? 'unchanged'
        : 'rewritten';
    } catch (err) {
      if (isNotFound(err)) return 'gone';
      // A 500 is the conversion webhook's error, or the server's: no retry makes it pass.
      const again = isConflict(err) || (isTransient(err) && !isInternalError(err));
      if (!again || attempt >= ATTEMPTS) throw err;
      if (!isConflict(err)) await sleep(200 * attempt);
    }
    try {
      current = await client.request<KubeObject>({ method: 'GET', path });
    } catch (err) {
      if (isNotFound(err)) return 'gone';
      throw err;
    }
  }
}

/** Runs `fn` on each item, `limit` at a time. `fn` must not reject. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Where a pass prints, and how: a line updated in place on a terminal, a line every 10 % elsewhere. */
export interface ProgressOptions {
  readonly out: NodeJS.WritableStream;
  /** Whether `out` is a terminal. */
  readonly tty: boolean;
  /** The clock, in milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The shortest time between two redraws of the line on a terminal. */
const REDRAW_MS = 100;
const CLEAR_LINE = '\r\x1b[2K';

/** `migrating NAME: done/total`, on a terminal in place (a few times a second), elsewhere every 10 %. */
export class Progress {
  private total?: number;
  private shown = false;
  private drawnAt = -Infinity;
  private tenths = 0;
  private done = 0;

  constructor(
    private readonly name: string,
    private readonly options: ProgressOptions,
  ) {}

  /** The count to come, when known. */
  start(total: number | undefined): void {
    this.total = total;
  }

  /** `done` objects handled so far. */
  tick(done: number): void {
    this.done = done;
    const now = (this.options.now ?? Date.now)();
    if (this.options.tty) {
      if (now - this.drawnAt < REDRAW_MS && done !== this.total) return;
      this.drawnAt = now;
      this.shown = true;
      this.options.out.write(`${CLEAR_LINE}${this.line()}`);
      return;
    }
    if (!this.total) return;
    const tenths = Math.min(10, Math.floor((done * 10) / this.total));
    if (tenths <= this.tenths) return;
    this.tenths = tenths;
    this.options.out.write(`${this.line()} (${tenths * 10} %)\n`);
  }

  /** Takes the line off the terminal, for another line (a failure) to be printed; the next tick redraws it. */
  clear(): void {
    if (!this.shown) return;
    this.options.out.write(CLEAR_LINE);
    this.shown = false;
    this.drawnAt = -Infinity;
  }

  /** Replaces the line with the last one, `text`. */
  end(text: string): void {
    this.clear();
    this.options.out.write(`${text}\n`);
  }

  private line(): string {
    const of = this.total !== undefined ? `/${Math.max(this.total, this.done)}` : '';
    return `migrating ${this.name}: ${this.done}${of}`;
  }
}
