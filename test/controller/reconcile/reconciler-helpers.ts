/** The kinds, namespace and helpers the reconciler's tests share; each test gets a fresh cluster. */
import {
  DEPLOYMENT,
  balancerKind,
  databaseManagerKind,
  memcachedKind,
  nodePoolKind,
  type Kind,
} from '../../../constructs';
import { InMemoryCluster, type Write } from '../../../testing';

export const NS = 'demo';
export const kinds: Kind[] = [memcachedKind, nodePoolKind, databaseManagerKind, balancerKind];

/** The helpers over the cluster of the test that runs (`cluster()`). */
export function reconcilerHelpers(cluster: () => InMemoryCluster) {
  return {
    reconcile: (kind: Kind, name: string, namespace: string | undefined = NS) =>
      cluster().reconciler().reconcile(kind, namespace, name),
    /** The writes since the last call, as `verb Kind/name`, status writes included. */
    writes: () =>
      cluster()
        .takeWrites()
        .map((w: Write) => `${w.verb} ${w.kind}/${w.name}`),
    /** The Deployment's status as its controller writes it once `replicas` are available. */
    available: (name: string, replicas: number) =>
      cluster().patch(DEPLOYMENT, NS, name, {
        status: {
          observedGeneration: 1,
          replicas,
          updatedReplicas: replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
        },
      }),
  };
}
