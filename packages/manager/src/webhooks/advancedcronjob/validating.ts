import { type AdmissionHandler, allowed, denied } from '@kruise/runtime';
import { aggregate } from '../field-errors.ts';
import { advancedCronJobErrors } from './spec-validation.ts';
import { advancedCronJobUpdateErrors } from './update-validation.ts';
import { decodeAdvancedCronJob } from './versions.ts';

/**
 * AdvancedCronJob's validating webhook (`vadvancedcronjob.kb.io`, both versions; a v1alpha1 object
 * is validated as v1beta1): upstream's checks in upstream's order, every error aggregated and
 * answered 422; a body that cannot be decoded 400.
 */
export const validateAdvancedCronJob: AdmissionHandler = (request) => {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const decoded = decodeAdvancedCronJob(request, 'object');
  if ('response' in decoded) return decoded.response;
  if (request.operation === 'CREATE') {
    const errors = advancedCronJobErrors(decoded.obj);
    return errors.length ? denied(422, aggregate(errors)) : allowed();
  }
  const old = decodeAdvancedCronJob(request, 'oldObject');
  if ('response' in old) return old.response;
  const errors = advancedCronJobUpdateErrors(decoded.obj, old.obj);
  return errors.length ? denied(422, aggregate(errors)) : allowed();
};
