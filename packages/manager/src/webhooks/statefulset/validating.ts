import type { FeatureGates, StatefulSet } from '@kruise/api';
import { type AdmissionHandler, type AdmissionResponse, allowed, denied } from '@kruise/runtime';
import { aggregate, type FieldError } from '../field-errors.ts';
import { statefulSetErrors } from './spec-validation.ts';
import { inPlaceOnlyRefusal, statefulSetUpdateErrors } from './update-validation.ts';
import { decodeStatefulSet } from './versions.ts';
import { type StorageClassLookup, volumeClaimTemplateUpdateErrors } from './volume-claim-update.ts';

/**
 * Where deletion protection (label `policy.kruise.io/delete-protection`, gate
 * ResourcesDeletionProtection) decides an Advanced StatefulSet's DELETE: given the stored object,
 * a denial (upstream answers 403), or undefined to let the deletion go. The routes hand in
 * deletion protection's workload check (`Cascading` refused while replicas > 0).
 */
export type StatefulSetDeletionCheck = (old: StatefulSet) => AdmissionResponse | undefined;

/** A deletion check that lets every deletion go (the default when none is handed in). */
export const allowStatefulSetDeletion: StatefulSetDeletionCheck = () => undefined;

/** What the validating webhook reads besides the request. */
export interface StatefulSetValidationDeps {
  /** StorageClasses, for the volumeClaimTemplate resize checks (gate StatefulSetAutoResizePVCGate). */
  storageClasses: StorageClassLookup;
  /** The DELETE check; {@link allowStatefulSetDeletion} when absent. */
  deletionCheck?: StatefulSetDeletionCheck;
}

const refused = (errors: FieldError[]) => denied(422, aggregate(errors));

/**
 * Advanced StatefulSet's validating webhook (`vstatefulset.kb.io`, both versions; a v1alpha1 object
 * is validated as v1beta1), upstream's checks in upstream's order, answered 422: on CREATE every
 * error of the object aggregated; on UPDATE those and the update rules, then (gate
 * StatefulSetAutoResizePVCGate) the volumeClaimTemplate rules, then InPlaceOnly's image-only
 * rule; on DELETE the deletion check.
 */
export function validateStatefulSet(gates: FeatureGates, deps: StatefulSetValidationDeps): AdmissionHandler {
  const deletionCheck = deps.deletionCheck ?? allowStatefulSetDeletion;
  return async (request) => {
    if (request.operation === 'DELETE') {
      if (!request.oldObject) return allowed();
      const old = decodeStatefulSet(request, 'oldObject');
      if ('response' in old) return old.response;
      return deletionCheck(old.obj) ?? allowed();
    }
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
    const decoded = decodeStatefulSet(request, 'object');
    if ('response' in decoded) return decoded.response;
    const sts = decoded.obj;
    if (request.operation === 'CREATE') {
      const errors = statefulSetErrors(sts);
      return errors.length ? refused(errors) : allowed();
    }
    const old = decodeStatefulSet(request, 'oldObject');
    if ('response' in old) return old.response;
    const errors = [...statefulSetErrors(sts), ...statefulSetUpdateErrors(sts, old.obj)];
    if (errors.length) return refused(errors);
    if (gates.enabled('StatefulSetAutoResizePVCGate')) {
      const claimErrors = await volumeClaimTemplateUpdateErrors(sts, old.obj, deps.storageClasses);
      if (claimErrors.length) return refused(claimErrors);
    }
    const inPlaceOnly = inPlaceOnlyRefusal(sts, old.obj);
    return inPlaceOnly ? denied(422, inPlaceOnly) : allowed();
  };
}
