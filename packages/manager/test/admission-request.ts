import type { AdmissionRequest } from '@kruise/runtime';

/** An admission request as the API server sends it for an apps.kruise.io object in namespace `default`. */
export function admissionRequest(
  operation: AdmissionRequest['operation'],
  resource: { version: string; kind: string; plural: string },
  object: unknown,
  oldObject?: unknown,
): AdmissionRequest {
  const { version, kind, plural } = resource;
  return {
    uid: 'u',
    kind: { group: 'apps.kruise.io', version, kind },
    resource: { group: 'apps.kruise.io', version, resource: plural },
    namespace: 'default',
    operation,
    object,
    oldObject,
  };
}

/** Requests for one kind: `(operation, object, oldObject?, version = v1beta1)`. */
export const requestsFor =
  (kind: string, plural: string) =>
  (
    operation: AdmissionRequest['operation'],
    object: unknown,
    oldObject?: unknown,
    version = 'v1beta1',
  ): AdmissionRequest =>
    admissionRequest(operation, { version, kind, plural }, object, oldObject);
