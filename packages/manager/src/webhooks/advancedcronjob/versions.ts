import type { AdvancedCronJob } from '@kruise/api';
import { type AdmissionRequest, type AdmissionResponse, denied } from '@kruise/runtime';
import { goDecodeError } from '../../workload/revision/go-encode.ts';
import { decodeObject } from '../decode.ts';
import { requestVersion } from '../statefulset/versions.ts';

/** The Go struct (see go-types-kruise.ts) an AdvancedCronJob of each version is decoded into. */
export const GO_STRUCT = { v1beta1: 'AdvancedCronJob', v1alpha1: 'AdvancedCronJobV1alpha1' } as const;

export { requestVersion };

/**
 * The request's object (`which`: the new one or the old one) as upstream reads it: decoded at the
 * request's version and converted to v1beta1 (a v1alpha1 object's imageListPullJobTemplate, if
 * sent, is ignored as Go's decoder ignores unknown fields). A body Go cannot decode (a wrong JSON
 * type anywhere, templates included) is answered 400 with Go's message.
 */
export function decodeAdvancedCronJob(
  request: AdmissionRequest,
  which: 'object' | 'oldObject',
): { obj: AdvancedCronJob } | { response: AdmissionResponse } {
  const version = requestVersion(request);
  const decoded = decodeObject<AdvancedCronJob>(
    { ...request, object: request[which] },
    'AdvancedCronJob',
    version,
  );
  if ('response' in decoded) return decoded;
  const struct = version === 'v1beta1' ? 'AdvancedCronJobSpec' : 'AdvancedCronJobSpecV1alpha1';
  const error = goDecodeError(decoded.obj.spec, struct, 'AdvancedCronJob', 'spec');
  if (error) return { response: denied(400, error) };
  if (version === 'v1beta1' || !decoded.obj.spec?.template) return decoded;
  const { imageListPullJobTemplate: _ignored, ...template } = decoded.obj.spec.template;
  return { obj: { ...decoded.obj, spec: { ...decoded.obj.spec, template } } };
}
