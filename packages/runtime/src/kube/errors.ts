/** A Kubernetes `Status` failure returned by the API server. */
export class KubeApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: Record<string, any>;

  constructor(code: number, status: Record<string, any>) {
    super(typeof status?.message === 'string' && status.message ? status.message : `HTTP ${code}`);
    this.name = 'KubeApiError';
    this.code = code;
    this.reason = typeof status?.reason === 'string' ? status.reason : '';
    this.status = status ?? {};
  }
}

/** 404 NotFound. */
export class NotFoundError extends KubeApiError {}
/** 409 Conflict (a stale resourceVersion). */
export class ConflictError extends KubeApiError {}
/** 409 AlreadyExists. */
export class AlreadyExistsError extends KubeApiError {}
/** 422 Invalid. */
export class InvalidError extends KubeApiError {}
/** 403 Forbidden. */
export class ForbiddenError extends KubeApiError {}
/** 410 Gone / Expired: a resourceVersion too old to watch from. */
export class GoneError extends KubeApiError {}
/** 429 TooManyRequests. */
export class TooManyRequestsError extends KubeApiError {}

/** Builds the typed error for a failed response. */
export function errorFor(code: number, status: Record<string, any>): KubeApiError {
  const reason = status?.reason;
  if (code === 404) return new NotFoundError(code, status);
  if (code === 409 && reason === 'AlreadyExists') return new AlreadyExistsError(code, status);
  if (code === 409) return new ConflictError(code, status);
  if (code === 422) return new InvalidError(code, status);
  if (code === 403) return new ForbiddenError(code, status);
  if (code === 410) return new GoneError(code, status);
  if (code === 429) return new TooManyRequestsError(code, status);
  return new KubeApiError(code, status);
}

/** Whether an error is a 404 from the API server. */
export const isNotFound = (err: unknown): err is NotFoundError => err instanceof NotFoundError;
/** Whether an error is a resourceVersion conflict. */
export const isConflict = (err: unknown): err is ConflictError => err instanceof ConflictError;
/** Whether an error is AlreadyExists. */
export const isAlreadyExists = (err: unknown): err is AlreadyExistsError => err instanceof AlreadyExistsError;
/** Whether an error is a 403 Forbidden (RBAC or an admission refusal). */
export const isForbidden = (err: unknown): err is ForbiddenError => err instanceof ForbiddenError;

/** What a read resolves with, or undefined when the API answers 404 (controller-runtime's IgnoreNotFound). */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
