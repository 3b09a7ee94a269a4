import type { FeatureGates } from '@kruise/api';
import { type AdmissionHandler, allowed, patched } from '@kruise/runtime';
import { goEncodedWorkload, templateDefaulting } from '../workload-defaulting.ts';
import { setBroadcastJobDefaults } from './defaults.ts';
import { BROADCASTJOB_GO_STRUCT, decodeBroadcastJob } from './versions.ts';

/**
 * BroadcastJob's defaulting webhook (`mbroadcastjob.kb.io`, both versions): upstream's defaults
 * (see `setBroadcastJobDefaults`), the pod-template defaults on create or when the template
 * changed (not with gate TemplateNoDefaults). When anything was defaulted the object is written
 * back as a Go webhook writes it, as a JSON patch from the object sent.
 */
export function mutateBroadcastJob(gates: FeatureGates): AdmissionHandler {
  return (request) => {
    const decoded = decodeBroadcastJob(request, 'object');
    if ('response' in decoded) return decoded.response;
    const defaulting = templateDefaulting(gates, request, decoded.obj.spec?.template, () => {
      const old = decodeBroadcastJob(request, 'oldObject');
      return 'response' in old ? old : { template: old.obj.spec?.template };
    });
    if ('response' in defaulting) return defaulting.response;
    const job = setBroadcastJobDefaults(structuredClone(decoded.obj), defaulting.inject);
    const encoded = goEncodedWorkload(job, BROADCASTJOB_GO_STRUCT);
    if (JSON.stringify(encoded) === JSON.stringify(goEncodedWorkload(decoded.obj, BROADCASTJOB_GO_STRUCT)))
      return allowed();
    return patched(request.object, encoded);
  };
}
