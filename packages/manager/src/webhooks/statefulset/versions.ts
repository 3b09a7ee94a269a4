import type { StatefulSet } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { decodeObject } from '../decode.ts';
import { requestVersion, type ServedVersion } from '../served-versions.ts';

/**
 * The two versions Advanced StatefulSet's webhooks are called at. Upstream decodes a request at its
 * own version and converts a v1alpha1 object to v1beta1 field by field before defaulting or
 * validating it; v1alpha1's fields are a subset of v1beta1's with the same names, so that
 * conversion is the object with v1beta1's extra spec fields absent.
 */
export type StatefulSetVersion = ServedVersion;

export { requestVersion };

/** The Go struct (see go-types-kruise.ts) an object of each version is decoded into. */
export const GO_STRUCT: Record<StatefulSetVersion, string> = {
  v1beta1: 'StatefulSet',
  v1alpha1: 'StatefulSetV1alpha1',
};

/** Spec fields v1alpha1 does not have. */
const V1BETA1_ONLY = [
  'volumeClaimUpdateStrategy',
  'reserveOrdinals',
  'lifecycle',
  'scaleStrategy',
  'persistentVolumeClaimRetentionPolicy',
  'ordinals',
];

/**
 * The request's object (`which`: the new one or the old one) as upstream reads it: decoded at the
 * request's version, as v1beta1. A v1alpha1 object's v1beta1-only fields, if sent, are ignored as
 * Go's decoder ignores unknown fields. A body of the wrong shape is answered 400.
 */
export function decodeStatefulSet(
  request: AdmissionRequest,
  which: 'object' | 'oldObject',
): { obj: StatefulSet } | { response: AdmissionResponse } {
  const version = requestVersion(request);
  const decoded = decodeObject<StatefulSet>({ ...request, object: request[which] }, 'StatefulSet', version);
  if ('response' in decoded || version === 'v1beta1' || !decoded.obj.spec) return decoded;
  const spec: Record<string, unknown> = { ...decoded.obj.spec };
  for (const k of V1BETA1_ONLY) delete spec[k];
  return { obj: { ...decoded.obj, spec: spec as StatefulSet['spec'] } };
}
