import { kindOfKey, objectKey, parseObjectKey } from '../../../controller/kube/object-key';

describe('objectKey', () => {
  it.each([
    [{ apiVersion: 'apps/v1', kind: 'Deployment' }, 'demo', 'web', 'apps/v1/Deployment/demo/web'],
    [{ apiVersion: 'v1', kind: 'Service' }, 'demo', 'web', 'v1/Service/demo/web'],
    [
      { apiVersion: 'nodes.lailin.xyz/v1', kind: 'NodePool' },
      undefined,
      'pool',
      'nodes.lailin.xyz/v1/NodePool//pool',
    ],
  ])('%j in %s named %s is %s, and splits back', (type, namespace, name, key) => {
    expect(objectKey(type, namespace, name)).toBe(key);
    expect(parseObjectKey(key)).toEqual({ ...type, namespace, name });
    expect(kindOfKey(key)).toBe(`${type.apiVersion}/${type.kind}`);
  });
});
