import type { FeatureGates } from '@kruise/api';
import { type AdmissionHandler, allowed, patched } from '@kruise/runtime';
import { goEncodedWorkload, templateDefaulting } from '../workload-defaulting.ts';
import { setStatefulSetDefaults } from './defaults.ts';
import { decodeStatefulSet, GO_STRUCT, requestVersion } from './versions.ts';

/**
 * Advanced StatefulSet's defaulting webhook (`mstatefulset.kb.io`, both versions): upstream's
 * defaults (see `setStatefulSetDefaults`), the pod-template defaults on create or when the
 * template changed (not with gate TemplateNoDefaults). As upstream, a v1alpha1 object is defaulted
 * as v1beta1 and written back at v1alpha1, so defaults of v1beta1-only fields do not reach it.
 * When anything was defaulted the object is written back as a Go webhook writes it, as a JSON
 * patch from the object sent.
 */
export function mutateStatefulSet(gates: FeatureGates): AdmissionHandler {
  return (request) => {
    const decoded = decodeStatefulSet(request, 'object');
    if ('response' in decoded) return decoded.response;
    const defaulting = templateDefaulting(gates, request, decoded.obj.spec?.template, () => {
      const old = decodeStatefulSet(request, 'oldObject');
      return 'response' in old ? old : { template: old.obj.spec?.template };
    });
    if ('response' in defaulting) return defaulting.response;
    const sts = setStatefulSetDefaults(structuredClone(decoded.obj), gates, defaulting.inject);
    // Whether anything was defaulted is judged at v1beta1, as upstream does.
    const same =
      JSON.stringify(goEncodedWorkload(sts, GO_STRUCT.v1beta1)) ===
      JSON.stringify(goEncodedWorkload(decoded.obj, GO_STRUCT.v1beta1));
    if (same) return allowed();
    return patched(request.object, goEncodedWorkload(sts, GO_STRUCT[requestVersion(request)]));
  };
}
