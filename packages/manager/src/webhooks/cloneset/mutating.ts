import { type CloneSet, type FeatureGates, setCloneSetDefaults } from '@kruise/api';
import { type AdmissionHandler, allowed, patched } from '@kruise/runtime';

import { decodeObject } from '../decode.ts';
import { goEncodedWorkload, templateDefaulting } from '../workload-defaulting.ts';

/**
 * The CloneSet defaulting webhook (`mcloneset.kb.io`): upstream's defaults (replicas 1,
 * revisionHistoryLimit 10, ReCreate, partition 0, maxUnavailable 20%, maxSurge 0, an empty
 * inPlaceUpdateStrategy for in-place types), and the pod-template defaults on create or when the
 * template changed (not with gate TemplateNoDefaults). When anything was defaulted the object is
 * written back as a Go webhook writes it (`creationTimestamp: null`, `resources: {}`, …), so the
 * stored template — and its revision hash — match upstream's.
 */
export function mutateCloneSet(gates: FeatureGates): AdmissionHandler {
  return (request) => {
    const decoded = decodeObject<CloneSet>(request, 'CloneSet');
    if ('response' in decoded) return decoded.response;
    const before = goEncodedWorkload(decoded.obj, 'CloneSet');
    const defaulting = templateDefaulting(gates, request, decoded.obj.spec?.template, () => {
      const old = decodeObject<CloneSet>({ ...request, object: request.oldObject }, 'CloneSet');
      return 'response' in old ? old : { template: old.obj.spec?.template };
    });
    if ('response' in defaulting) return defaulting.response;
    const cs = setCloneSetDefaults(structuredClone(decoded.obj), defaulting.inject);
    const after = goEncodedWorkload(cs, 'CloneSet');
    if (JSON.stringify(after) === JSON.stringify(before)) return allowed();
    return patched(request.object, after);
  };
}
