import {
  ApiError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNamespaceTerminating,
  isNotFound,
  isTooManyRequests,
  isTransient,
  isUnauthorized,
} from '../../../controller/kube/errors';

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

  // Each predicate, the one status (and reason) it answers true for: every other status, a plain Error
  // and a non-error answer false.
  const STATUSES = [0, 400, 401, 403, 404, 405, 409, 410, 422, 429, 500, 503, 504];
  const reasonFor = (status: number) => (status === 409 ? 'Conflict' : undefined);
  it.each<[string, (err: unknown) => boolean, number[]]>([
    ['isBadRequest', isBadRequest, [400]],
    ['isUnauthorized', isUnauthorized, [401]],
    ['isForbidden', isForbidden, [403]],
    ['isNotFound', isNotFound, [404]],
    ['isMethodNotSupported', isMethodNotSupported, [405]],
    ['isConflict', isConflict, [409]],
    ['isGone', isGone, [410]],
    ['isInvalid', isInvalid, [422]],
    ['isTooManyRequests', isTooManyRequests, [429]],
    ['isInternalError', isInternalError, [500]],
    ['isTransient', isTransient, [0, 429, 500, 503, 504]],
  ])('%s is true for its own statuses only', (_name, predicate, trueFor) => {
    const answers = STATUSES.map((status) => [
      status,
      predicate(new ApiError(status, `HTTP ${status}`, { reason: reasonFor(status) })),
    ]);
    expect(answers).toEqual(STATUSES.map((status) => [status, trueFor.includes(status)]));
    expect(predicate(Object.assign(new Error('not found'), { status: trueFor[0] }))).toBe(false);
    expect(predicate(undefined)).toBe(false);
  });

  it('isAlreadyExists is a 409 whose reason is AlreadyExists, from the Status body', () => {
    const exists = ApiError.fromResponse(
      409,
      JSON.stringify({ kind: 'Status', reason: 'AlreadyExists', message: 'exists', code: 409 }),
      'POST x',
    );
    expect(isAlreadyExists(exists)).toBe(true);
    expect(isAlreadyExists(new ApiError(409, 'modified', { reason: 'Conflict' }))).toBe(false);
    expect(isAlreadyExists(Object.assign(new Error('exists'), { reason: 'AlreadyExists' }))).toBe(false);
  });

  it('takes the reason from the status when the body has no Status (a proxy error page)', () => {
    const err = ApiError.fromResponse(422, '<html>invalid</html>', 'PATCH x');
    expect(err.reason).toBe('Invalid');
    expect(isInvalid(err)).toBe(true);
    expect(isForbidden(ApiError.fromResponse(403, 'forbidden', 'GET x'))).toBe(true);
  });
});
