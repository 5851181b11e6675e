/**
 * One reconcile of a StaticSite at a time, by the controller's own reconciler, against an in-memory
 * cluster (`cdk8s-reconstruct/testing`): the exact writes, the status and the events, in milliseconds.
 * cluster.test.ts runs the same kind against a real API server.
 */
import { InMemoryCluster } from 'cdk8s-reconstruct/testing';
import { CONFIG_MAP, DEPLOYMENT, SERVICE } from 'cdk8s-reconstruct';
import { staticSiteKind } from '../src';

const NS = 'web';
const PAGES = { 'index.html': '<h1>Docs</h1>' };
let cluster: InMemoryCluster;
beforeEach(() => {
  cluster = new InMemoryCluster([staticSiteKind]);
});

/** The writes since the last call, as `verb Kind/name (field manager)`. */
const writes = () =>
  cluster
    .takeWrites()
    .map((w) => `${w.verb} ${w.kind}/${w.name}${w.fieldManager ? ` (${w.fieldManager})` : ''}`)
    .sort();
const deployment = () =>
  cluster.any(DEPLOYMENT, NS, 'docs') as unknown as {
    spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  };
/** What kube-controller-manager would write once `replicas` pods are available. */
const rolledOut = (replicas: number) =>
  cluster.patch(DEPLOYMENT, NS, 'docs', {
    status: { observedGeneration: 1, replicas, updatedReplicas: replicas, availableReplicas: replicas },
  });

it('creates the pages, the Deployment and the Service, the endpoint once the Service has its address, then reports Ready with the url', async () => {
  cluster.putResource(staticSiteKind, 'docs', { pages: PAGES, replicas: 2 }, NS);
  await cluster.reconcile(staticSiteKind, NS, 'docs');
  // The endpoint waits for the address the API server gives the Service: Ready says which input.
  expect(writes()).toEqual([
    'apply ConfigMap/docs-content (reconstruct)',
    'apply Deployment/docs (reconstruct)',
    'apply Service/docs (reconstruct)',
    'status StaticSite/docs',
  ]);
  expect(cluster.ready(staticSiteKind, NS, 'docs')).toMatchObject({
    status: 'False',
    message: expect.stringContaining('ConfigMap docs-endpoint waits for input address'),
  });

  cluster.patch(SERVICE, NS, 'docs', { spec: { clusterIP: '10.96.0.10' } }); // what the API server assigns
  await cluster.reconcile(staticSiteKind, NS, 'docs');
  expect(writes()).toContain('apply ConfigMap/docs-endpoint (reconstruct)');
  expect(cluster.any(CONFIG_MAP, NS, 'docs-endpoint')?.data).toEqual({
    address: '10.96.0.10',
    url: 'http://10.96.0.10:80/',
  });

  await cluster.reconcile(staticSiteKind, NS, 'docs');
  expect(cluster.ready(staticSiteKind, NS, 'docs')).toMatchObject({
    status: 'False',
    message: 'Deployment docs: 0 of 2 replicas updated',
  });
  rolledOut(2);
  await cluster.reconcile(staticSiteKind, NS, 'docs');
  expect(cluster.ready(staticSiteKind, NS, 'docs')).toMatchObject({ status: 'True', reason: 'Ready' });
  expect(cluster.any(staticSiteKind, NS, 'docs')?.status).toMatchObject({
    url: 'http://docs.web.svc:80',
    availableReplicas: 2,
  });

  // Converged: another reconcile writes nothing.
  writes();
  await cluster.reconcile(staticSiteKind, NS, 'docs');
  expect(writes()).toEqual([]);
});

it('with autoscaling: the autoscaler keeps its replica count across an image change', async () => {
  const spec = { pages: PAGES, replicas: 2, autoscaling: { maxReplicas: 6 } };
  cluster.putResource(staticSiteKind, 'docs', spec, NS);
  await cluster.reconcile(staticSiteKind, NS, 'docs');
  // Created with spec.replicas, which a second field manager then holds for the autoscaler to take.
  expect(writes()).toEqual([
    'apply ConfigMap/docs-content (reconstruct)',
    'apply Deployment/docs (reconstruct)',
    'apply Deployment/docs (reconstruct-initial)',
    'apply HorizontalPodAutoscaler/docs (reconstruct)',
    'apply Service/docs (reconstruct)',
    'status StaticSite/docs',
  ]);

  cluster.patch(DEPLOYMENT, NS, 'docs', { spec: { replicas: 5 } }); // the autoscaler scales up
  await cluster.reconcile(staticSiteKind, NS, 'docs');
  expect(writes().filter((w) => w.includes('Deployment'))).toEqual([]);

  cluster.setSpec(staticSiteKind, NS, 'docs', { ...spec, image: 'nginx:1.28-alpine' });
  await cluster.reconcile(staticSiteKind, NS, 'docs');
  expect(deployment().spec.template.spec.containers[0].image).toBe('nginx:1.28-alpine');
  expect(deployment().spec.replicas).toBe(5);
});
