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

/**
 * Denies the request as controller-runtime's `admission.Errored(code, err)`: `message` is what users
 * see after `admission webhook "…" denied the request: `, and no reason is named (kubectl prints
 * `Error from server: …`).
 */
export function denied(code: number, message: string): AdmissionResponse {
  return { allowed: false, status: { code, message } };
}

/**
 * Denies the request as controller-runtime's `admission.Denied(message)`: 403 with the reason
 * Forbidden (kubectl prints `Error from server (Forbidden): …`).
 */
export function forbidden(message: string): AdmissionResponse {
  return { allowed: false, status: { code: 403, message, reason: 'Forbidden' } };
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
