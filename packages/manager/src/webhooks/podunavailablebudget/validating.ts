import type { FeatureGates, PodUnavailableBudget } from '@kruise/api';
import { type AdmissionHandler, type AdmissionRequest, allowed, denied } from '@kruise/runtime';
import { decodeObject } from '../decode.ts';
import { aggregate, type FieldError, internalError } from '../field-errors.ts';
import { pubConflictErrors } from './conflicts.ts';
import { type PubView, pubView } from './go-view.ts';
import type { PubAdmissionLookups } from './lookups.ts';
import { pubAnnotationErrors, pubSpecErrors, pubTargetChangeErrors } from './spec-validation.ts';

export { apiPubLookups } from './api-lookups.ts';
export { NO_PUB_LOOKUPS, type PubAdmissionLookups } from './lookups.ts';

const GATES = ['PodUnavailableBudgetDeleteGate', 'PodUnavailableBudgetUpdateGate'] as const;
const GATES_OFF = `feature PodUnavailableBudget is invalid, please open via feature-gate(${GATES.join(', ')})`;
const KIND = 'PodUnavailableBudget';

/** The request's new or old object as Go decodes it, or the 400 of its decoder. */
function decodePub(request: AdmissionRequest, which: 'object' | 'oldObject') {
  const decoded = decodeObject<PodUnavailableBudget>({ ...request, object: request[which] }, KIND);
  return 'response' in decoded ? decoded : { view: pubView(decoded.obj) };
}

/** The conflicts with the other budgets of the namespace, or the InternalError of a failed list. */
async function conflictErrors(
  pub: PubView,
  namespace: string,
  lookups: PubAdmissionLookups,
): Promise<FieldError[]> {
  let others: PodUnavailableBudget[];
  try {
    others = await lookups.budgets(namespace);
  } catch (err) {
    // (upstream's InternalError at field.NewPath(""), which prints as an empty path)
    return [
      internalError('', `query other podUnavailableBudget failed, err: ${(err as Error)?.message ?? err}`),
    ];
  }
  return pubConflictErrors(pub, others.map(pubView));
}

/**
 * The PodUnavailableBudget's validating webhook (`vpodunavailablebudget.kb.io`, CREATE and UPDATE
 * of policy.kruise.io/v1alpha1), as upstream answers: 400 while both PUB gates are off, 400 with the
 * decoder's words for an object Go cannot read, else every error — annotations, spec, on update a
 * changed selector or targetRef, and the first conflict with another budget of the namespace —
 * joined in one 400 as Kubernetes joins field errors.
 */
export function validatePodUnavailableBudget(
  gates: FeatureGates,
  lookups: PubAdmissionLookups,
): AdmissionHandler {
  return async (request) => {
    if (!GATES.some((g) => gates.enabled(g))) return denied(400, GATES_OFF);
    const decoded = decodePub(request, 'object');
    if ('response' in decoded) return decoded.response;
    const pub = decoded.view;
    const errors = [...pubAnnotationErrors(pub), ...pubSpecErrors(pub)];
    if (request.operation === 'UPDATE') {
      const old = decodePub(request, 'oldObject');
      if ('response' in old) return old.response;
      errors.push(...pubTargetChangeErrors(pub, old.view));
    }
    // (the object's namespace, as upstream lists; the request's when the object names none)
    errors.push(...(await conflictErrors(pub, pub.namespace || request.namespace || '', lookups)));
    return errors.length ? denied(400, aggregate(errors)) : allowed();
  };
}
