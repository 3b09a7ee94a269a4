import { type JsonPatchOperation, jsonPatchDiff } from './json-patch-diff.ts';

/** The `request` of an AdmissionReview v1. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  object?: any;
  oldObject?: any;
  dryRun?: boolean;
}

/** What a handler decides (the server adds `uid`). */
export interface AdmissionResponse {
  allowed: boolean;
  status?: { code: number; message: string; reason?: string };
  patchType?: 'JSONPatch';
  patch?: string;
  warnings?: string[];
}

/** Handles one admission request. */
export type AdmissionHandler = (request: AdmissionRequest) => AdmissionResponse | Promise<AdmissionResponse>;

/** Allows the request unchanged. */
export const allowed = (warnings?: string[]): AdmissionResponse => ({
  allowed: true,
  ...(warnings?.length ? { warnings } : {}),
});

/** Denies the request; `message` is what users see after `admission webhook "…" denied the request: `. */
export function denied(code: number, message: string): AdmissionResponse {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
    422: 'Invalid',
    500: 'InternalError',
  };
  return { allowed: false, status: { code, message, ...(reasons[code] ? { reason: reasons[code] } : {}) } };
}

/** Allows the request with the JSON Patch from the raw request object to `mutated` (none when equal). */
export function patched(rawObject: unknown, mutated: unknown): AdmissionResponse {
  const ops: JsonPatchOperation[] = jsonPatchDiff(rawObject, mutated);
  if (ops.length === 0) return allowed();
  return {
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
  };
}
