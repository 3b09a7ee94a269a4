import type { DaemonSet } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { decodeObject } from '../decode.ts';
import { requestVersion, type ServedVersion } from '../served-versions.ts';

/**
 * The two versions Advanced DaemonSet's webhooks are called at. Upstream decodes a request at its
 * own version and defaults and validates it there (v1alpha1 knows the deprecated `Surging` type and
 * has no `scaleStrategy`); the fields the two share have the same names and types.
 */
export type DaemonSetVersion = ServedVersion;

export { requestVersion };

/** The Go struct (see go-types-kruise.ts) an object of each version is decoded into. */
export const GO_STRUCT: Record<DaemonSetVersion, string> = {
  v1beta1: 'DaemonSet',
  v1alpha1: 'DaemonSetV1alpha1',
};

/**
 * The request's object (`which`: the new one or the old one) as upstream reads it: decoded at the
 * request's version. A v1alpha1 object's `scaleStrategy`, if sent, is ignored as Go's decoder
 * ignores unknown fields. A body of the wrong shape is answered 400.
 */
export function decodeDaemonSet(
  request: AdmissionRequest,
  which: 'object' | 'oldObject',
): { obj: DaemonSet } | { response: AdmissionResponse } {
  const version = requestVersion(request);
  const decoded = decodeObject<DaemonSet>({ ...request, object: request[which] }, 'DaemonSet', version);
  if ('response' in decoded || version === 'v1beta1' || !decoded.obj.spec) return decoded;
  const { scaleStrategy: _ignored, ...spec } = decoded.obj.spec;
  return { obj: { ...decoded.obj, spec } };
}
