/**
 * The lists a preview of a whole fleet needs, each made once. Planned alone, each resource lists its
 * children by its ApplySet's label, one LIST per child type, and the API server answers each by scanning
 * every object of that type in the namespace: 1,000 resources of two child types are 2,000 scans of 1,000
 * objects. Here each child type is listed once per namespace (every object of an ApplySet) and grouped by
 * ApplySet; a watch's selection once per namespace.
 */
import type { KubeObject } from '../../constructs/kit';
import { LABEL_PART_OF } from '../../constructs/kit/resource';
import type { KubeClient } from '../../controller/kube/client';
import { listObjects, type Lister } from '../diff/dry-run';

export function fleetLister(client: KubeClient): Lister {
  const sets = new Map<string, Promise<Map<string, KubeObject[]>>>();
  const lists = new Map<string, Promise<KubeObject[]>>();
  const prefix = `${LABEL_PART_OF}=`;
  return (type, namespace, labelSelector) => {
    const ns = type.namespaced ? namespace : undefined;
    const where = `${type.apiVersion}/${type.kind}/${ns ?? ''}`;
    if (labelSelector?.startsWith(prefix) && !labelSelector.includes(',')) {
      let groups = sets.get(where);
      if (!groups) {
        groups = listObjects(client, type, ns, LABEL_PART_OF).then((items) => {
          const byId = new Map<string, KubeObject[]>();
          for (const o of items) {
            const id = o.metadata.labels?.[LABEL_PART_OF] ?? '';
            byId.set(id, [...(byId.get(id) ?? []), o]);
          }
          return byId;
        });
        sets.set(where, groups);
      }
      const id = labelSelector.slice(prefix.length);
      return groups.then((g) => g.get(id) ?? []);
    }
    const key = `${where}/${labelSelector ?? ''}`;
    let listed = lists.get(key);
    if (!listed) {
      listed = listObjects(client, type, ns, labelSelector);
      lists.set(key, listed);
    }
    return listed;
  };
}
