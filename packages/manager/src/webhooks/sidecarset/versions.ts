import type { SidecarSet } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { denied } from '@kruise/runtime';
import { goDecodeError } from '../../workload/revision/go-encode.ts';
import { sidecarSetConversion } from '../conversion/sidecarset.ts';
import { decodeObject } from '../decode.ts';
import { requestVersion, type ServedVersion } from '../served-versions.ts';

/**
 * The two versions the SidecarSet's webhooks are called at: the mutating webhook defaults the object
 * at the request's version; the validating webhook reads it at v1beta1 (a v1alpha1 object converted
 * as the conversion webhook does: `namespace` becomes a namespaceSelector).
 */

export { requestVersion, type ServedVersion };

/** The Go struct (see go-types-kruise.ts) an object of each version is decoded into. */
export const GO_STRUCT: Record<ServedVersion, string> = {
  v1beta1: 'SidecarSet',
  v1alpha1: 'SidecarSetV1alpha1',
};

/**
 * The request's object (`which`: the new or the old one) at the request's version, or a 400 with
 * the message of Go's decoder when its shape is not a SidecarSet's.
 */
export function decodeSidecarSet(
  request: AdmissionRequest,
  which: 'object' | 'oldObject',
): { obj: SidecarSet } | { response: AdmissionResponse } {
  const version = requestVersion(request);
  const decoded = decodeObject<SidecarSet>({ ...request, object: request[which] }, 'SidecarSet', version);
  if ('response' in decoded) return decoded;
  const spec = decoded.obj.spec;
  const struct = version === 'v1beta1' ? 'SidecarSetSpec' : 'SidecarSetSpecV1alpha1';
  const e = goDecodeError(spec, struct, 'SidecarSet', 'spec');
  return e ? { response: denied(400, e) } : decoded;
}

/** The request's object as a v1beta1 SidecarSet (a copy; v1alpha1 converted to the hub). */
export function decodeSidecarSetV1beta1(
  request: AdmissionRequest,
  which: 'object' | 'oldObject',
): { obj: SidecarSet } | { response: AdmissionResponse } {
  const decoded = decodeSidecarSet(request, which);
  if ('response' in decoded) return decoded;
  const copy = structuredClone(decoded.obj) as unknown as Record<string, any>;
  if (requestVersion(request) === 'v1beta1') return { obj: copy as SidecarSet };
  return { obj: sidecarSetConversion.spokes.v1alpha1!.toHub(copy) as unknown as SidecarSet };
}
