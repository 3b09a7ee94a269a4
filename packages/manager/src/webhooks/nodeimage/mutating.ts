import { type NodeImage, setNodeImageDefaults } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import { type AdmissionHandler, patched } from '@kruise/runtime';
import { decodeObject } from '../decode.ts';

/** Stamps `createdAt`, defaults each tag's pull policy and sorts spec and status tags. */
export const mutateNodeImage: AdmissionHandler = (request) => {
  const decoded = decodeObject<NodeImage>(request, 'NodeImage');
  if ('response' in decoded) return decoded.response;
  const ni = structuredClone(decoded.obj);
  const images = ni.spec?.images;
  if (images && (typeof images !== 'object' || Array.isArray(images))) return patched(request.object, ni);
  for (const image of Object.values(images ?? {})) {
    if (!image || typeof image !== 'object' || !Array.isArray(image.tags)) return patched(request.object, ni);
    if (image.tags.some((t) => !t || typeof t !== 'object')) return patched(request.object, ni);
  }
  setNodeImageDefaults(ni, kubeTime());
  return patched(request.object, ni);
};
