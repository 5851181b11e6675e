/**
 * Why the install grants `create` on every child kind, not only on those with create-only children
 * (docs/RBAC.md): the controller makes its children by server-side apply, and the API server authorizes
 * an apply that makes its object as a `create` as well as a `patch`. Held against kube-apiserver: without
 * `create` the first apply of a child is refused, naming the verb; an apply of an object that exists
 * needs `patch` only.
 */
import { loadClient } from '../../../controller/kube/client';
import { ApiError, isForbidden } from '../../../controller/kube/errors';
import { resourcePath } from '../../../controller/kube/paths';
import { applyRequest } from '../../../controller/kube/writer';
import { CONFIG_MAP } from '../../../constructs/kit';
import { kubectl } from '../../support/kubectl';
import { serviceAccountKubeconfig } from '../../support/controller-role';

const NAMESPACE = `apply-needs-create-${process.pid}`;
const READ_AND_PATCH = ['get', 'list', 'watch', 'patch', 'delete'];

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NAMESPACE },
  data: { answer: '42' },
});

const apply = (kubeconfig: string, name: string) =>
  loadClient({ kubeconfig })
    .request(applyRequest(resourcePath(CONFIG_MAP, NAMESPACE, name), configMap(name), 'reconstruct'))
    .then(
      () => 'applied',
      (err: unknown) => err,
    );

afterAll(() => kubectl(['delete', 'namespace', NAMESPACE, '--wait=false', '--ignore-not-found']));

describe('a server-side apply of a child', () => {
  it('that makes the object is refused without create, naming the verb', async () => {
    const kubeconfig = serviceAccountKubeconfig('apply-without-create', NAMESPACE, [
      { apiGroups: [''], resources: ['configmaps'], verbs: READ_AND_PATCH },
    ]);
    const refused = await apply(kubeconfig, 'new');
    expect(refused).toBeInstanceOf(ApiError);
    expect(isForbidden(refused)).toBe(true);
    expect((refused as ApiError).message).toMatch(/cannot create resource "configmaps"/);
  });

  it('that changes an object already there needs patch only', async () => {
    kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(configMap('there')) });
    const kubeconfig = serviceAccountKubeconfig('apply-without-create', NAMESPACE, [
      { apiGroups: [''], resources: ['configmaps'], verbs: READ_AND_PATCH },
    ]);
    expect(await apply(kubeconfig, 'there')).toBe('applied');
  });

  it('that makes the object succeeds with create as well', async () => {
    const kubeconfig = serviceAccountKubeconfig('apply-with-create', NAMESPACE, [
      { apiGroups: [''], resources: ['configmaps'], verbs: [...READ_AND_PATCH, 'create'] },
    ]);
    expect(await apply(kubeconfig, 'made')).toBe('applied');
  });
});
