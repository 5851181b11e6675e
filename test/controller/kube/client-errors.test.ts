import { ApiError, isConflict, isNamespaceTerminating } from '../../../controller/kube/errors';

// The response of kube-apiserver v1.36.3 (the local cluster) to a POST of an Event into a namespace held in
// Terminating by a finalizer, as `kubectl create --raw ... -v=9` printed it.
const terminating =
  '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"events \\"x.\\" is forbidden: ' +
  'unable to create new content in namespace term-test2 because it is being terminated","reason":"Forbidden",' +
  '"details":{"name":"x.","kind":"events","causes":[{"reason":"NamespaceTerminating","message":"namespace ' +
  'term-test2 is being terminated","field":"metadata.namespace"}]},"code":403}';
// An RBAC denial, as the same server answers it (a service account without the right, impersonated).
const rbac = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message:
    'events is forbidden: User "system:serviceaccount:reconstruct-system:reconstruct" cannot create resource "events" in API group "" in the namespace "demo"',
  reason: 'Forbidden',
  details: { kind: 'events' },
  code: 403,
});

describe('ApiError classification', () => {
  it('tells a write into a terminating namespace from an RBAC denial', () => {
    const a = ApiError.fromResponse(403, terminating, 'POST /api/v1/namespaces/demo/events');
    const b = ApiError.fromResponse(403, rbac, 'POST /api/v1/namespaces/demo/events');
    expect(a.reason).toBe('Forbidden');
    expect(a.message).toMatch(/being terminated/);
    expect(isNamespaceTerminating(a)).toBe(true);
    expect(isNamespaceTerminating(b)).toBe(false);
    expect(isNamespaceTerminating(new Error('namespace is being terminated'))).toBe(false);
  });

  it('does not count AlreadyExists as a conflict', () => {
    const exists = ApiError.fromResponse(
      409,
      JSON.stringify({ kind: 'Status', reason: 'AlreadyExists', message: 'exists', code: 409 }),
      'POST x',
    );
    const conflict = ApiError.fromResponse(
      409,
      JSON.stringify({ kind: 'Status', reason: 'Conflict', message: 'modified', code: 409 }),
      'PUT x',
    );
    expect(isConflict(exists)).toBe(false);
    expect(isConflict(conflict)).toBe(true);
  });
});
