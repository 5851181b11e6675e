/** What one reconcile wrote, laid over the caches (controller/reconcile/written.ts). */
import { DEPLOYMENT, SERVICE, type ClusterView, type KubeObject } from '../../../constructs/kit';
import { KIT_VIEW, kitView } from '../../../constructs/kit/kit-view';
import { Written } from '../../../controller/reconcile/written';

const object = (name: string, resourceVersion: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace: 'ns', resourceVersion, labels },
});

/** A view of one cached Deployment, `old`, at version 1, and one Service. */
function caches(): ClusterView {
  const deployments = [object('old', '1', { app: 'a' }), object('web', '1', { app: 'a' })];
  return {
    get: (type, _ns, name) =>
      type === DEPLOYMENT ? deployments.find((d) => d.metadata.name === name) : undefined,
    list: (type, _ns, match) =>
      type === DEPLOYMENT
        ? deployments.filter((d) => !match || d.metadata.labels?.[match.label] === match.value)
        : [],
    exists: (type, _ns, name) => type === DEPLOYMENT && deployments.some((d) => d.metadata.name === name),
  };
}

it('reads what the reconcile wrote over the cached objects, at the time of each read', () => {
  const written = new Written();
  const view = written.over(caches());
  expect(view.get(DEPLOYMENT, 'ns', 'web')?.metadata.resourceVersion).toBe('1');
  const web = object('web', '7', { app: 'a' });
  written.record(DEPLOYMENT, { ...web, metadata: { ...web.metadata, managedFields: [{ manager: 'x' }] } });
  written.record(DEPLOYMENT, object('new', '8', { app: 'b' }));
  written.record(SERVICE, object('web', '9'));
  expect(view.get(DEPLOYMENT, 'ns', 'web')?.metadata).toEqual({
    name: 'web',
    namespace: 'ns',
    resourceVersion: '7',
    labels: { app: 'a' },
  }); // managedFields dropped, as the caches hold objects
  expect(view.exists(DEPLOYMENT, 'ns', 'new')).toBe(true);
  expect(view.get(SERVICE, 'ns', 'web')?.metadata.resourceVersion).toBe('9');
  const names = (objects: KubeObject[]) =>
    objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
  expect(names(view.list(DEPLOYMENT, 'ns'))).toEqual(['old@1', 'web@7', 'new@8']);
  expect(names(view.list(DEPLOYMENT, 'ns', { label: 'app', value: 'a' }))).toEqual(['old@1', 'web@7']);
});

it('keeps a recording view recording, and the kit’s reads on the view it wraps', () => {
  const read: string[] = [];
  const inner = caches();
  const recording: ClusterView & { [KIT_VIEW]: ClusterView } = {
    get: (type, ns, name) => (read.push(type.kind), inner.get(type, ns, name)),
    list: (type, ns, match) => (read.push(type.kind), inner.list(type, ns, match)),
    exists: (type, ns, name) => (read.push(type.kind), inner.exists(type, ns, name)),
    [KIT_VIEW]: inner,
  };
  const written = new Written();
  written.record(DEPLOYMENT, object('web', '7'));
  const view = written.over(recording);
  expect(view.get(DEPLOYMENT, 'ns', 'web')?.metadata.resourceVersion).toBe('7');
  expect(read).toEqual(['Deployment']);
  expect(kitView(view).get(DEPLOYMENT, 'ns', 'web')?.metadata.resourceVersion).toBe('7');
  expect(read).toEqual(['Deployment']);
});
