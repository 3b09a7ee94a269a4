import { type ImageListPullJob, setImageListPullJobDefaults } from '@kruise/api';
import { type AdmissionHandler, patched } from '@kruise/runtime';
import { decodeObject } from '../decode.ts';

/** Defaults an ImageListPullJob's completion type and pull policy (no finalizer, no imagePullPolicy). */
export const mutateImageListPullJob: AdmissionHandler = (request) => {
  const decoded = decodeObject<ImageListPullJob>(request, 'ImageListPullJob');
  if ('response' in decoded) return decoded.response;
  const job = structuredClone(decoded.obj);
  setImageListPullJobDefaults(job);
  return patched(request.object, job);
};
