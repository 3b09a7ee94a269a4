import type { FeatureGates, NodeImage } from '@kruise/api';
import { type AdmissionHandler, allowed, denied } from '@kruise/runtime';

import { decodeObject, gateOff } from '../decode.ts';

/** Most images one NodeImage may hold. */
export const MAX_IMAGES_PER_NODE = 256;

function nodeImageError(ni: NodeImage): string | undefined {
  const images = ni.spec?.images ?? {};
  const names = Object.keys(images);
  if (names.length > MAX_IMAGES_PER_NODE)
    return `spec images length ${names.length} can not be more than ${MAX_IMAGES_PER_NODE}`;
  for (const name of names) {
    if (name.length === 0) return 'image name can not be empty';
    const seen = new Set<string>();
    for (const tag of images[name]?.tags ?? []) {
      if (!tag?.tag) return `tag for image ${name} can not be empty`;
      if (seen.has(tag.tag)) return `duplicated tag ${tag.tag} for image ${name}`;
      seen.add(tag.tag);
      const full = `${name}/${tag.tag}`;
      if (!tag.createdAt) return `createAt field for ${full} can not be empty`;
      if ((tag.version ?? 0) < 0) return `version for ${full} can not be less than 0`;
      if (!tag.pullPolicy) return `pullPolicy field for ${full} must set`;
      if (
        tag.pullPolicy.ttlSecondsAfterFinished === undefined ||
        tag.pullPolicy.ttlSecondsAfterFinished === null
      ) {
        return `pullPolicy.ttlSecondsAfterFinished for ${full} must set`;
      }
    }
  }
  return undefined;
}

/** Validates NodeImages with upstream's rules and messages. */
export function validateNodeImage(gates: FeatureGates): AdmissionHandler {
  return (request) => {
    const decoded = decodeObject<NodeImage>(request, 'NodeImage');
    if ('response' in decoded) return decoded.response;
    if (!gates.enabled('KruiseDaemon')) return gateOff('KruiseDaemon');
    const problem = nodeImageError(decoded.obj);
    return problem ? denied(400, problem) : allowed();
  };
}
