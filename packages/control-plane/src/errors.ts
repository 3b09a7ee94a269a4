/** Kubernetes `Status` failures, with kube-apiserver's reasons, codes and message shapes. */

/** One cause of an Invalid status (a field and what is wrong with it). */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

/** The details block of a Status. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** An error that the HTTP layer turns into a `Status` response. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  /** The Status's list metadata (a fresh `continue` token on an expired one). */
  listMeta: { continue?: string } | undefined;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /** The `meta/v1 Status` object for this error. */
  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.listMeta ?? {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `<resource>[.<group>] "<name>"` as kube-apiserver writes it in messages. */
export function qualifiedName(resource: string, group: string, name?: string): string {
  const r = group ? `${resource}.${group}` : resource;
  return name === undefined ? r : `${r} "${name}"`;
}

export const notFound = (resource: string, group: string, name: string) =>
  new ApiError(404, 'NotFound', `${qualifiedName(resource, group, name)} not found`, {
    name,
    group,
    kind: resource,
  });

export const alreadyExists = (resource: string, group: string, name: string) =>
  new ApiError(409, 'AlreadyExists', `${qualifiedName(resource, group, name)} already exists`, {
    name,
    group,
    kind: resource,
  });

export const conflict = (resource: string, group: string, name: string, why: string) =>
  new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedName(resource, group, name)}: ${why}`,
    {
      name,
      group,
      kind: resource,
    },
  );

/** 422 Invalid: `Kind.group "name" is invalid: [field: reason, …]`. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const list = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${list}`, {
    name,
    group,
    kind,
    causes,
  });
}

export const badRequest = (message: string) => new ApiError(400, 'BadRequest', message);

export const forbidden = (message: string, details?: StatusDetails) =>
  new ApiError(403, 'Forbidden', message, details);

export const unauthorized = () => new ApiError(401, 'Unauthorized', 'Unauthorized');

export const gone = (message: string) => new ApiError(410, 'Expired', message);

/**
 * kube-apiserver's 410 for a `continue` token whose snapshot was compacted away: it carries a
 * fresh token that continues from the latest state.
 */
export function continueExpired(freshToken: string): ApiError {
  const err = gone(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );
  err.listMeta = { continue: freshToken };
  return err;
}

export const methodNotAllowed = (method: string) =>
  new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`, {
    kind: method,
  });

/** kube-apiserver's 415 for a body it cannot read, listing what the verb accepts. */
export const unsupportedMediaType = (accepted: string[]) =>
  new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );

export const internalError = (message: string) =>
  new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);

export const tooManyRequests = (message: string) =>
  new ApiError(429, 'TooManyRequests', message, { retryAfterSeconds: 1 });

/** 404 for a path that names no resource (as kube-apiserver answers: the page not found). */
export const pathNotFound = () =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource');
