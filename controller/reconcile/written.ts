/**
 * What one reconcile wrote, laid over the caches: the objects its creates and applies returned are newer
 * than the caches' until their watch events come, so the rest of the reconcile reads them instead. A
 * sibling that waits for a Namespace created a moment ago goes ahead in the same reconcile; the status
 * says how the Deployment just created does, not that it is missing (and its watch event, an echo, then
 * wakes no one: echoes.ts). The view reads what is written at the time of each read.
 */
import type { ApiKind, ClusterView, KubeObject, LabelMatch } from '../../constructs/kit';
import { KIT_VIEW, kitView } from '../../constructs/kit/kit-view';
import { objectKey } from '../kube/object-key';

export class Written {
  private readonly objects = new Map<string, { type: ApiKind; object: KubeObject }>();

  /** A write returned this object (managedFields dropped, as the caches hold it). */
  record(type: ApiKind, object: KubeObject): void {
    const metadata: KubeObject['metadata'] & { managedFields?: unknown } = { ...object.metadata };
    delete metadata.managedFields;
    const { namespace, name = '' } = metadata;
    this.objects.set(objectKey(type, namespace, name), { type, object: { ...object, metadata } });
  }

  /**
   * The view with the written objects over the cached ones. Every read still goes to `view` first, so
   * that a recording view (kind-reads.ts) sees what the kind's code reads; the kit's own reads go to the
   * view it wraps, with the same objects over it.
   */
  over(view: ClusterView): ClusterView {
    const inner = kitView(view);
    if (inner === view) return this.overlay(view);
    const over: ClusterView & { [KIT_VIEW]: ClusterView } = {
      ...this.overlay(view),
      [KIT_VIEW]: this.overlay(inner),
    };
    return over;
  }

  private overlay(view: ClusterView): ClusterView {
    const written = this.objects;
    return {
      get(type, namespace, name) {
        const cached = view.get(type, namespace, name);
        return written.get(objectKey(type, namespace, name))?.object ?? cached;
      },
      list(type, namespace, match) {
        const listed = view.list(type, namespace, match);
        if (written.size === 0) return listed;
        const mine = [...written.values()].filter((w) => inList(w, type, namespace, match));
        if (mine.length === 0) return listed;
        const byKey = new Map(listed.map((o) => [objectKey(type, o.metadata.namespace, o.metadata.name), o]));
        for (const { object } of mine) {
          byKey.set(objectKey(type, object.metadata.namespace, object.metadata.name ?? ''), object);
        }
        return [...byKey.values()];
      },
      exists(type, namespace, name) {
        return view.exists(type, namespace, name) || written.has(objectKey(type, namespace, name));
      },
    };
  }
}

function inList(
  { type: writtenType, object }: { type: ApiKind; object: KubeObject },
  type: ApiKind,
  namespace: string | undefined,
  match: LabelMatch | undefined,
): boolean {
  return (
    writtenType.apiVersion === type.apiVersion &&
    writtenType.kind === type.kind &&
    (namespace === undefined || object.metadata.namespace === namespace) &&
    (!match || object.metadata.labels?.[match.label] === match.value)
  );
}
