/**
 * The reads the controller makes on demand, outside its caches: the pods of one workload and the events
 * of one object, only for a resource whose child has been stuck a while (controller/reconcile/troubles.ts).
 * An interface, so that a reconcile runs on the in-memory cluster too (testing/live-reads.ts).
 */
import { EVENT, POD, type KubeObject } from '../../constructs/kit';
import { selectorQuery } from '../../constructs/kit/pod-trouble';
import type { LabelSelector } from '../../constructs/kit/selectors';
import type { KubeClient } from './client';
import { resourcePath } from './paths';

export interface LiveReads {
  /** The pods of a namespace that a selector selects. */
  pods(namespace: string, selector: LabelSelector): Promise<KubeObject[]>;
  /** The events about one object of a namespace (`involvedObject`), in any order. */
  events(namespace: string, about: { kind: string; name: string }): Promise<KubeObject[]>;
}

/**
 * LiveReads through the API server. `resourceVersion=0`: served from its watch cache, as an informer's
 * first list is, not from etcd: a read of what the cluster just said is fresh enough to explain it.
 */
export function kubeLiveReads(client: Pick<KubeClient, 'request'>): LiveReads {
  const list = async (path: string, query: Record<string, string>) =>
    (
      await client.request<{ items: KubeObject[] }>({
        method: 'GET',
        path,
        query: { ...query, resourceVersion: '0' },
      })
    ).items;
  return {
    pods: (namespace, selector) =>
      list(resourcePath(POD, namespace), { labelSelector: selectorQuery(selector) }),
    events: (namespace, about) =>
      list(resourcePath(EVENT, namespace), {
        fieldSelector: `involvedObject.kind=${about.kind},involvedObject.name=${about.name}`,
      }),
  };
}
