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

type KindName = Pick<ApiKind, 'apiVersion' | 'kind'>;

export class KindReads {
  /** By the kind's key, the keys of the types its code has read. */
  private readonly read = new Map<string, Set<string>>();
  /** By the kind's key, the recording view its code is handed (one per kind, made once). */
  private readonly views = new Map<string, ClusterView>();

  /** `caches`: the view the recording ones read through. */
  constructor(private readonly caches: ClusterView) {}

  /** The view to hand the kind's code: the caches, with every type it reads recorded. */
  viewOf(definition: Kind): ClusterView {
    const key = kindKey(definition);
    const made = this.views.get(key);
    if (made) return made;
    // What its inputs read of its children (KindOptions.inputs), it reads from the first reconcile on.
    const types = new Set<string>(childInputTypes(definition));
    this.read.set(key, types);
    const caches = this.caches;
    const recording: ClusterView & { [KIT_VIEW]: ClusterView } = {
      get(type, namespace, name) {
        types.add(kindKey(type));
        return caches.get(type, namespace, name);
      },
      list(type, namespace, match) {
        types.add(kindKey(type));
        return caches.list(type, namespace, match);
      },
      exists(type, namespace, name) {
        types.add(kindKey(type));
        return caches.exists(type, namespace, name);
      },
      [KIT_VIEW]: caches,
    };
    this.views.set(key, recording);
    return recording;
  }

  /** Whether the code of the owner's kind (a child's controller ownerReference names it) read `type`. */
  readonly reads = (owner: KindName, type: ApiKind): boolean =>
    this.read.get(kindKey(owner))?.has(kindKey(type)) ?? false;
}

const childInputs = new WeakMap<Kind, ReadonlySet<string>>();

/**
 * The types of the children a kind's inputs read (`from: 'child'`), made once per kind. The inputs phase
 * reads them before the apply, so a write of one is news to the resource (its event is no echo).
 */
export function childInputTypes(definition: Kind): ReadonlySet<string> {
  let types = childInputs.get(definition);
  if (!types) {
    types = new Set(
      Object.values(definition.inputs).flatMap((i) => (i.from === 'child' ? [kindKey(i.type)] : [])),
    );
    childInputs.set(definition, types);
  }
  return types;
}
