import type { FeatureGates, ImagePullJob } from '@kruise/api';
import { type AdmissionHandler, allowed, denied, forbidden } from '@kruise/runtime';

import { decodeObject, gateOff } from '../decode.ts';
import { policyError, selectorError } from '../job-template.ts';
import { imageError } from '../validation.ts';

const sameList = (a: unknown, b: unknown) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** Validates ImagePullJobs with upstream's rules and messages (400), behind the feature gates (403). */
export function validateImagePullJob(gates: FeatureGates): AdmissionHandler {
  return (request) => {
    const decoded = decodeObject<ImagePullJob>(request, 'ImagePullJob');
    if ('response' in decoded) return decoded.response;
    if (!gates.enabled('KruiseDaemon')) return gateOff('KruiseDaemon');
    if (!gates.enabled('ImagePullJobGate')) return gateOff('ImagePullJobGate');
    const spec = decoded.obj.spec ?? ({} as NonNullable<ImagePullJob['spec']>);
    if (request.operation === 'UPDATE' && !sameList(spec.pullSecrets, request.oldObject?.spec?.pullSecrets)) {
      return forbidden('spec.pullSecrets is immutable');
    }
    const problem =
      selectorError(spec) ??
      (typeof spec.image !== 'string' || spec.image.length === 0
        ? 'image can not be empty'
        : imageError(spec.image)) ??
      policyError(spec, true);
    return problem ? denied(400, problem) : allowed();
  };
}
