/**
 * How a request to the API server fails: ApiError, with the HTTP status and the metav1.Status reason,
 * and the predicates the controller decides by (not found, conflict, gone, ...). Apart from the HTTP
 * code so that what only classifies errors (the reconciler's tests, the in-memory cluster) never loads
 * the client.
 */

/**
 * A failed request. `status` is the HTTP status code, 0 when no response came (network error,
 * timeout, abort). `reason` is the metav1.Status reason (NotFound, Conflict, AlreadyExists,
 * Expired, Gone, Invalid, Forbidden, ...), derived from the status code when the body has none.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly reason?: string;
  readonly body?: unknown;
  /** From a Retry-After header or the Status details (429, some 5xx). */
  readonly retryAfterSeconds?: number;

  constructor(
    status: number,
    message: string,
    options: { reason?: string; body?: unknown; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ApiError';
    this.status = status;
    this.reason = options.reason;
    this.body = options.body;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** Builds the error from a non-2xx response body (a metav1.Status when the server made it). */
  static fromResponse(status: number, text: string, what: string, retryAfterHeader?: string): ApiError {
    let body: unknown = text;
    let message: string | undefined;
    let reason: string | undefined;
    let retryAfter = retryAfterHeader !== undefined ? Number(retryAfterHeader) : undefined;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's error page, say): keep the text.
    }
    if (isObject(body) && body.kind === 'Status') {
      if (typeof body.message === 'string') message = body.message;
      if (typeof body.reason === 'string' && body.reason !== '') reason = body.reason;
      const details = body.details;
      if (isObject(details) && typeof details.retryAfterSeconds === 'number') {
        retryAfter = details.retryAfterSeconds;
      }
    }
    reason ??= REASONS[status];
    message ??= `HTTP ${status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`;
    return new ApiError(status, `${what}: ${message}`, {
      reason,
      body,
      retryAfterSeconds: retryAfter !== undefined && Number.isFinite(retryAfter) ? retryAfter : undefined,
    });
  }
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const statusOf = (err: unknown): number | undefined => (err instanceof ApiError ? err.status : undefined);
const reasonOf = (err: unknown): string | undefined => (err instanceof ApiError ? err.reason : undefined);

// The predicates the callers decide by, named as client-go's apierrors (IsNotFound, IsConflict, ...). Each is
// false for anything that is not an ApiError.

/** 400: a request the server cannot read (a malformed body, a field it cannot parse). */
export const isBadRequest = (err: unknown): boolean => statusOf(err) === 400;
/** 401: no credentials, or ones the server no longer takes (an expired token or exec credential). */
export const isUnauthorized = (err: unknown): boolean => statusOf(err) === 401;
/** 403: RBAC or an admission plugin refuses the request (see also isNamespaceTerminating). */
export const isForbidden = (err: unknown): boolean => statusOf(err) === 403;
/** 404: no such object (or no such namespace, or a kind the server does not serve). */
export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
/** 405: the resource does not serve the verb (a deletecollection on a kind that has none). */
export const isMethodNotSupported = (err: unknown): boolean => statusOf(err) === 405;
/** 409 that is not AlreadyExists: a stale resourceVersion or precondition, a field another manager owns. */
export const isConflict = (err: unknown): boolean =>
  statusOf(err) === 409 && reasonOf(err) !== 'AlreadyExists';
/** 409 AlreadyExists: a create of a name that is taken. */
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
/** 410: the resourceVersion is too old (a watch or list must start over). */
export const isGone = (err: unknown): boolean => statusOf(err) === 410;
/** 422: the object fails validation (the schema, a CEL rule, an immutable field: see immutableFields). */
export const isInvalid = (err: unknown): boolean => statusOf(err) === 422;
/** 429: the server asks to come back later (retryAfterSeconds says when, if it does). */
export const isTooManyRequests = (err: unknown): boolean => statusOf(err) === 429;
/** 500: the server failed the request (an apply it cannot convert to the object's type is one). */
export const isInternalError = (err: unknown): boolean => statusOf(err) === 500;
/** No answer (status 0: a network fault, a timeout), a 429 or a 5xx: the same request may pass later. */
export const isTransient = (err: unknown): boolean => {
  const status = statusOf(err);
  return status !== undefined && (status === 0 || status === 429 || status >= 500);
};

/** 403 for a write into a namespace that is being deleted (the Status names the cause NamespaceTerminating). */
export const isNamespaceTerminating = (err: unknown): boolean => {
  if (!(err instanceof ApiError) || !isForbidden(err) || !isObject(err.body)) return false;
  const details = err.body.details;
  const causes = isObject(details) ? details.causes : undefined;
  return Array.isArray(causes) && causes.some((c) => isObject(c) && c.reason === 'NamespaceTerminating');
};

/**
 * 403 from OwnerReferencesPermissionEnforcement for an owner whose kind the API server's discovery does not
 * know yet: a CRD installed less than about 30 s ago (its REST mapper is reset every 30 s). Not RBAC.
 */
export const isOwnerKindUndiscovered = (err: unknown): boolean =>
  err instanceof ApiError && isForbidden(err) && err.message.includes('cannot find RESTMapping');

/**
 * The fields a 422 names as immutable (`spec.template` of a Job, a workload's `spec.selector`, a Service's
 * `spec.clusterIP`, a StatefulSet's `spec` beyond what it lets change): a change that no retry makes,
 * only a new object. Empty when the refusal is something else.
 */
export const immutableFields = (err: unknown): string[] => {
  if (!(err instanceof ApiError) || !isInvalid(err) || !isObject(err.body)) return [];
  const details = err.body.details;
  const causes = isObject(details) && Array.isArray(details.causes) ? details.causes : [];
  return causes
    .filter(
      (c): c is { field: string; message: string } =>
        isObject(c) &&
        typeof c.field === 'string' &&
        typeof c.message === 'string' &&
        (/field is immutable/.test(c.message) || /updates to .+ are forbidden/.test(c.message)),
    )
    .map((c) => c.field);
};

/** A JSON object, as a Status or a watch event is. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
