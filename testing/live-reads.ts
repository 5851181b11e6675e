/**
 * The controller's on-demand reads (controller/kube/live-reads.ts) on the in-memory cluster: the pods and
 * the events a test puts, as the API server would select them.
 */
import { EVENT, POD, type ClusterView } from '../constructs/kit';
import { selectorMatches } from '../constructs/kit/selectors';
import type { LiveReads } from '../controller/kube/live-reads';

export function liveReads(cluster: Pick<ClusterView, 'list'>): LiveReads {
  return {
    pods: (namespace, selector) =>
      Promise.resolve(
        cluster.list(POD, namespace).filter((p) => selectorMatches(selector, p.metadata.labels ?? {})),
      ),
    events: (namespace, about) =>
      Promise.resolve(
        cluster.list(EVENT, namespace).filter((e) => {
          const involved = (e as { involvedObject?: { kind?: string; name?: string } }).involvedObject;
          return involved?.kind === about.kind && involved.name === about.name;
        }),
      ),
  };
}
