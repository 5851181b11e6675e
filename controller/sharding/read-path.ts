/**
 * How the members of a ring read their share (`--sharded-watch`): the API server's sharded list and watch
 * when it serves it (./probe), else the labels the ring's leader writes; and the member's share as
 * /readyz?verbose lists it.
 */
import { sleep } from '../abortable';
import type { KubeClient } from '../kube/client';
import type { Logger } from '../log';
import type { Share } from './member';
import { LEASE } from '../../constructs/kit';
import { resourcePath } from '../kube/paths';
import { SHARD_FIELD, hexBound, shardSelector } from './ring';

/** A setting the cluster cannot honour: said in one line, and the controller exits 2. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

/**
 * How the members of a ring read their share (ControllerSettings.shardedWatch): asks the API server
 * whether it serves sharded list and watch, until it answers.
 */
export async function chooseReadPath(
  client: KubeClient,
  settings: { shardedWatch?: 'auto' | 'on' | 'off'; leaseNamespace: string },
  log: Logger,
  signal?: AbortSignal,
): Promise<'labels' | 'ranges'> {
  const wanted = settings.shardedWatch ?? 'auto';
  if (wanted === 'off') return 'labels';
  for (let delayMs = 500; ; delayMs = Math.min(delayMs * 2, 30_000)) {
    try {
      const served = await servesShardedWatch(client, settings.leaseNamespace);
      if (served) return 'ranges';
      if (wanted === 'on')
        throw new SettingsError(
          '--sharded-watch on: the API server does not serve sharded list and watch (Kubernetes 1.36+ ' +
            'with the ShardedListAndWatch feature gate); use --sharded-watch auto or off',
        );
      return 'labels';
    } catch (err) {
      if (err instanceof SettingsError) throw err;
      log.warn('could not ask the API server whether it serves sharded watches; retrying', {
        error: (err as Error).message,
        retryInMs: delayMs,
      });
      await sleep(delayMs, signal);
      if (signal?.aborted) return 'labels';
    }
  }
}

/** The member's share, as /readyz?verbose lists it. */
export function shareCheck(
  sharding: { ring: string; member: string },
  readPath: 'labels' | 'ranges',
  share: Share | undefined,
): { name: string; ok: boolean; message: string } {
  const name = `shard ${sharding.member} of ring ${sharding.ring}`;
  if (!share) return { name, ok: true, message: 'the resources labelled for it (read path: labels)' };
  const ranges = share.ranges.map(([s, e]) => `[${hexBound(s)}, ${hexBound(e)})`).join(' ');
  return {
    name,
    ok: true,
    message:
      `generation ${share.generation}${share.settled ? '' : ' (changing)'}, ` +
      `${share.ranges.length} hash ranges${ranges ? `: ${ranges}` : ''} (read path: ${readPath})`,
  };
}

/**
 * Whether the API server serves sharded list and watch (KEP-5866, alpha in Kubernetes 1.36 behind the
 * ShardedListAndWatch feature gate): a list with a `shardSelector` that the server applied says so in
 * `metadata.shardInfo`; a server without the feature ignores the parameter and returns everything.
 */
export async function servesShardedWatch(client: KubeClient, namespace: string): Promise<boolean> {
  const selector = shardSelector([[0n, 1n << 63n]], SHARD_FIELD)!;
  const list = await client.request<{ metadata?: { shardInfo?: { selector?: string } } }>({
    method: 'GET',
    path: resourcePath(LEASE, namespace),
    query: { limit: 1, shardSelector: selector },
  });
  return list.metadata?.shardInfo?.selector !== undefined;
}
