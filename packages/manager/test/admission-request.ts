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
