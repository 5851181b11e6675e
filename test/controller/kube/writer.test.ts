/**
 * The requests the Writer sends, recorded: server-side applies ask the API server to skip its strict second
 * parse of the YAML (fieldValidation=Ignore), the other writes keep its default. That an apply's unknown
 * field is still refused is checked against the real API server in informer.cluster.test.ts.
 */
import { CONFIG_MAP, DEPLOYMENT, type Manifest } from '../../../constructs/kit';
import { memcachedKind } from '../../../constructs/memcached';
import type { KubeClient } from '../../../controller/kube/client';
import type { KubeRequest } from '../../../controller/kube/http';
import { KubeWriter } from '../../../controller/kube/writer';

function recordingWriter(): { writer: KubeWriter; requests: KubeRequest[] } {
  const requests: KubeRequest[] = [];
  const client: KubeClient = {
    request: <T>(req: KubeRequest) => {
      requests.push(req);
      return Promise.resolve({} as T);
    },
    watch: () => {
      throw new Error('the Writer does not watch');
    },
  };
  return { writer: new KubeWriter(client, 'reconstruct'), requests };
}

const deployment: Manifest = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { replicas: 2 },
};

describe('Writer', () => {
  it('applies server-side with force, its field manager, and without the strict second parse', async () => {
    const { writer, requests } = recordingWriter();
    await writer.apply(DEPLOYMENT, deployment);
    await writer.apply(DEPLOYMENT, deployment, 'reconstruct-initial');
    expect(requests).toEqual([
      {
        method: 'PATCH',
        path: '/apis/apps/v1/namespaces/shop/deployments/web',
        query: { fieldManager: 'reconstruct', force: true, fieldValidation: 'Ignore' },
        body: deployment,
        contentType: 'application/apply-patch+yaml',
      },
      expect.objectContaining({
        query: { fieldManager: 'reconstruct-initial', force: true, fieldValidation: 'Ignore' },
      }),
    ]);
  });

  it('applies a status the same way, to the status subresource, with nothing but the status', async () => {
    const { writer, requests } = recordingWriter();
    const resource = {
      apiVersion: memcachedKind.apiVersion,
      kind: memcachedKind.kind,
      metadata: { name: 'cache', namespace: 'shop', uid: 'u1', resourceVersion: '7' },
      spec: { size: 1 },
    };
    await writer.applyStatus(memcachedKind, resource, { nodes: ['cache-a'] });
    expect(requests).toEqual([
      {
        method: 'PATCH',
        path: '/apis/cache.example.com/v1alpha1/namespaces/shop/memcacheds/cache/status',
        query: { fieldManager: 'reconstruct', force: true, fieldValidation: 'Ignore' },
        body: {
          apiVersion: 'cache.example.com/v1alpha1',
          kind: 'Memcached',
          metadata: { name: 'cache', namespace: 'shop' },
          status: { nodes: ['cache-a'] },
        },
        contentType: 'application/apply-patch+yaml',
      },
    ]);
  });

  it("leaves the API server's default validation to creates and patches, which report unknown fields", async () => {
    const { writer, requests } = recordingWriter();
    await writer.create(CONFIG_MAP, 'shop', { metadata: { name: 'c' } });
    await writer.mergePatch(CONFIG_MAP, 'shop', 'c', { data: { a: '1' } });
    await writer.jsonPatch(CONFIG_MAP, 'shop', 'c', [{ op: 'remove', path: '/data/a' }]);
    expect(requests.map((r) => r.query?.fieldValidation)).toEqual([undefined, undefined, undefined]);
    expect(requests.map((r) => r.method)).toEqual(['POST', 'PATCH', 'PATCH']);
  });
});
