import type { AdvancedCronJob, FeatureGates } from '@kruise/api';
import { type AdmissionHandler, allowed, patched } from '@kruise/runtime';
import { encodeStruct } from '../../workload/revision/go-encode.ts';
import { goEncodedWorkload } from '../workload-defaulting.ts';
import { setAdvancedCronJobDefaults } from './defaults.ts';
import { decodeAdvancedCronJob, GO_STRUCT, requestVersion } from './versions.ts';

const encodedTemplate = (acj: AdvancedCronJob) =>
  JSON.stringify(encodeStruct((acj.spec?.template ?? {}) as Record<string, unknown>, 'CronJobTemplate'));

/**
 * AdvancedCronJob's defaulting webhook (`madvancedcronjob.kb.io`, both versions): upstream's
 * defaults (see `setAdvancedCronJobDefaults`), the pod defaults of a Job or BroadcastJob template on
 * create or when the template changed (not with gate TemplateNoDefaults), and an empty status. As
 * upstream, a v1alpha1 object is defaulted as v1beta1 and written back at v1alpha1; when anything
 * changed the object is written back as a Go webhook writes it, as a JSON patch from the one sent.
 */
export function mutateAdvancedCronJob(gates: FeatureGates): AdmissionHandler {
  return (request) => {
    const decoded = decodeAdvancedCronJob(request, 'object');
    if ('response' in decoded) return decoded.response;
    let inject = false;
    if (!gates.enabled('TemplateNoDefaults')) {
      if (request.operation === 'UPDATE') {
        const old = decodeAdvancedCronJob(request, 'oldObject');
        if ('response' in old) return old.response;
        inject = encodedTemplate(decoded.obj) !== encodedTemplate(old.obj);
      } else inject = true;
    }
    const acj = setAdvancedCronJobDefaults(structuredClone(decoded.obj), inject);
    acj.status = {};
    const beta = (obj: AdvancedCronJob) => JSON.stringify(goEncodedWorkload(obj, GO_STRUCT.v1beta1));
    // Go decodes an absent status as its zero value, which the reset leaves as it was.
    if (beta(acj) === beta({ ...decoded.obj, status: decoded.obj.status ?? {} })) return allowed();
    return patched(request.object, goEncodedWorkload(acj, GO_STRUCT[requestVersion(request)]));
  };
}
