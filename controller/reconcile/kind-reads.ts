/**
 * Which types of object each kind's own code reads: its `status`, `ready` and `sync` are given a view of
 * the caches that records every type they get or list. A child's update that changes only its status
 * matters to its owner when the kit's rules find the child's readiness changed (the manager's predicate
 * judges that itself), or when the owner's kind reads objects of the child's type: its code may read any
 * field of them (a Balancer's status copies its Deployment's replicas). What a kind has read once, it is
 * taken to read from then on; a type it has never read changes nothing it has computed yet, since the
 * reconcile that first reads it reads the cache as it is.
 */
import type { ApiKind, ClusterView, Kind } from '../../constructs/kit';
import { kindKey } from '../../constructs/kit/api-kind';
import { KIT_VIEW } from '../../constructs/kit/kit-view';

/** What a child's owner is, as its controller ownerReference names it. */
export interface OwnerKind {
  readonly apiVersion: string;
  readonly kind: string;
}

export class KindReads {
  /** By the kind's key, the keys of the types its code has read. */
  private readonly read = new Map<string, Set<string>>();

  /** The view to hand the kind's code: `view`, with every type it reads recorded. */
  view(definition: Kind, view: ClusterView): ClusterView {
    const key = kindKey(definition);
    const record = (type: ApiKind) => {
      let types = this.read.get(key);
      if (!types) this.read.set(key, (types = new Set()));
      types.add(kindKey(type));
    };
    const recording: ClusterView & { [KIT_VIEW]: ClusterView } = {
      get(type, namespace, name) {
        record(type);
        return view.get(type, namespace, name);
      },
      list(type, namespace, match) {
        record(type);
        return view.list(type, namespace, match);
      },
      exists(type, namespace, name) {
        record(type);
        return view.exists(type, namespace, name);
      },
      [KIT_VIEW]: view,
    };
    return recording;
  }

  /** Whether the code of the owner's kind has read objects of `type`. */
  reads(owner: OwnerKind, type: ApiKind): boolean {
    return this.read.get(kindKey(owner))?.has(kindKey(type)) ?? false;
  }
}
