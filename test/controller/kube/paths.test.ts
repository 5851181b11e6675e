import { CONFIG_MAP, EVENT, LEASE, NODE, POD } from '../../../constructs/kit';
import { resourcePath } from '../../../controller/kube/paths';

describe('resourcePath', () => {
  const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true };
  const CRD = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  };

  test.each([
    ['core, one namespace', POD, ['ns'], '/api/v1/namespaces/ns/pods'],
    ['core, all namespaces', POD, [], '/api/v1/pods'],
    ['core, empty namespace means all', POD, [''], '/api/v1/pods'],
    ['core object', POD, ['ns', 'web-0'], '/api/v1/namespaces/ns/pods/web-0'],
    ['core subresource', POD, ['ns', 'web-0', 'status'], '/api/v1/namespaces/ns/pods/web-0/status'],
    ['cluster-scoped core ignores the namespace', NODE, ['ns', 'n1'], '/api/v1/nodes/n1'],
    ['group, all namespaces', DEPLOYMENT, [], '/apis/apps/v1/deployments'],
    ['group object', DEPLOYMENT, ['ns', 'web'], '/apis/apps/v1/namespaces/ns/deployments/web'],
    [
      'group subresource',
      DEPLOYMENT,
      ['ns', 'web', 'scale'],
      '/apis/apps/v1/namespaces/ns/deployments/web/scale',
    ],
    [
      'cluster-scoped group',
      CRD,
      [undefined, 'x.example.com'],
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.example.com',
    ],
    [
      'lease',
      LEASE,
      ['kube-system', 'ctrl'],
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ctrl',
    ],
    ['core events', EVENT, ['ns'], '/api/v1/namespaces/ns/events'],
    ['configmaps', CONFIG_MAP, ['ns', 'c'], '/api/v1/namespaces/ns/configmaps/c'],
  ] as const)('%s', (_what, type, args, expected) => {
    expect(resourcePath(type, ...(args as readonly (string | undefined)[]))).toBe(expected);
  });

  test('escapes names', () => {
    expect(resourcePath(CONFIG_MAP, 'ns', 'a b/c')).toBe('/api/v1/namespaces/ns/configmaps/a%20b%2Fc');
  });

  test('a subresource needs a name', () => {
    expect(() => resourcePath(POD, 'ns', undefined, 'status')).toThrow(
      /subresource "status" of pods needs a name/,
    );
  });

  test('the built-ins have the right groups and scopes', () => {
    expect(POD).toEqual({ apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
    expect(NODE).toEqual({ apiVersion: 'v1', kind: 'Node', plural: 'nodes', namespaced: false });
    expect(EVENT).toEqual({ apiVersion: 'v1', kind: 'Event', plural: 'events', namespaced: true });
    expect(LEASE).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      plural: 'leases',
      namespaced: true,
    });
  });
});
