import { DELETION_PROTECTION_FINALIZER, type ImagePullJob, setImagePullJobDefaults } from '@kruise/api';
import { type AdmissionHandler, patched } from '@kruise/runtime';
import { decodeObject } from '../decode.ts';

/** Defaults an ImagePullJob (Always, 600 s, 3 retries, IfNotPresent) and adds the protection finalizer on create. */
export const mutateImagePullJob: AdmissionHandler = (request) => {
  const decoded = decodeObject<ImagePullJob>(request, 'ImagePullJob');
  if ('response' in decoded) return decoded.response;
  const job = structuredClone(decoded.obj);
  setImagePullJobDefaults(job);
  if (request.operation === 'CREATE') {
    const finalizers: string[] = Array.isArray(job.metadata?.finalizers) ? job.metadata!.finalizers! : [];
    if (!finalizers.includes(DELETION_PROTECTION_FINALIZER))
      job.metadata = { ...job.metadata, finalizers: [...finalizers, DELETION_PROTECTION_FINALIZER] };
  }
  return patched(request.object, job);
};
