import type { FeatureGates } from '@kruise/api';
import { type AdmissionHandler, allowed, denied } from '@kruise/runtime';
import { aggregate, internalError } from '../field-errors.ts';
import { containerUpdateErrors, sidecarSetConflictErrors } from './conflicts.ts';
import type { SidecarSetAdmissionLookups } from './lookups.ts';
import { sidecarSetErrors } from './spec-validation.ts';
import { decodeSidecarSetV1beta1 } from './versions.ts';

/**
 * The SidecarSet's validating webhook (`vsidecarset.kb.io`, both versions, CREATE and UPDATE), as
 * upstream answers: the object is read at v1beta1 (400 when it cannot be decoded); its own errors
 * (metadata, spec, and on update the container changes) and, only when it has none, its conflicts
 * with the other SidecarSets that can select the same pods, are refused with 500 and every error
 * joined as Kubernetes joins field errors.
 */
export function validateSidecarSet(
  gates: FeatureGates,
  lookups: SidecarSetAdmissionLookups,
): AdmissionHandler {
  const patchMetadataDefaultsAllowed = gates.enabled('SidecarSetPatchPodMetadataDefaultsAllowed');
  return async (request) => {
    const decoded = decodeSidecarSetV1beta1(request, 'object');
    if ('response' in decoded) return decoded.response;
    const set = decoded.obj;
    const old = request.operation === 'UPDATE' ? decodeSidecarSetV1beta1(request, 'oldObject') : undefined;
    if (old && 'response' in old) return old.response;
    const errors = await sidecarSetErrors(set, { lookups, patchMetadataDefaultsAllowed });
    if (old) errors.push(...containerUpdateErrors(set, old.obj));
    if (errors.length) return denied(500, aggregate(errors));
    let others: Awaited<ReturnType<SidecarSetAdmissionLookups['sidecarSets']>>;
    try {
      others = await lookups.sidecarSets();
    } catch (err) {
      // (upstream's InternalError at the empty path)
      const detail = `query other sidecarsets failed, err: ${(err as Error).message}`;
      return denied(500, aggregate([internalError('', detail)]));
    }
    const conflicts = sidecarSetConflictErrors(set, others);
    return conflicts.length ? denied(500, aggregate(conflicts)) : allowed();
  };
}
