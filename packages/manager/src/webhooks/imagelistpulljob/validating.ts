import type { FeatureGates, ImageListPullJob } from '@kruise/api';
import { type AdmissionHandler, allowed, denied } from '@kruise/runtime';

import { decodeObject, gateOff } from '../decode.ts';
import { policyError, selectorError } from '../job-template.ts';
import { imageError } from '../validation.ts';

/** Most images one ImageListPullJob may list. */
export const MAX_IMAGES = 255;

function imagesError(images: unknown): string | undefined {
  if (!Array.isArray(images) || images.length === 0) return 'image can not be empty';
  if (images.length > MAX_IMAGES) return `the maximum number of images cannot > ${MAX_IMAGES}`;
  if (new Set(images).size !== images.length) return 'images cannot have duplicate values';
  for (const image of images) {
    if (typeof image !== 'string' || image === '') return 'image can not be empty';
    const err = imageError(image);
    if (err) return err;
  }
  return undefined;
}

/** Validates ImageListPullJobs with upstream's rules and messages. */
export function validateImageListPullJob(gates: FeatureGates): AdmissionHandler {
  return (request) => {
    const decoded = decodeObject<ImageListPullJob>(request, 'ImageListPullJob');
    if ('response' in decoded) return decoded.response;
    if (!gates.enabled('KruiseDaemon')) return gateOff('KruiseDaemon');
    if (!gates.enabled('ImagePullJobGate')) return gateOff('ImagePullJobGate');
    const spec = decoded.obj.spec ?? ({} as NonNullable<ImageListPullJob['spec']>);
    const problem = selectorError(spec) ?? imagesError(spec.images) ?? policyError(spec, false);
    return problem ? denied(400, problem) : allowed();
  };
}
