import { type CloneSet, type FeatureGates, setCloneSetDefaults } from '@kruise/api';
import { type AdmissionHandler, allowed, patched } from '@kruise/runtime';

import { encodeStruct } from '../../workload/revision/go-encode.ts';
import { decodeObject } from '../decode.ts';

/**
 * The CloneSet as upstream's webhook re-encodes it (Go field rules for its spec); metadata and
 * status are left as sent (the API server owns them).
 */
function goEncoded(cs: CloneSet): Record<string, unknown> {
  const encoded = encodeStruct(cs as Record<string, unknown>, 'CloneSet');
  return { ...encoded, metadata: cs.metadata, ...(cs.status === undefined ? {} : { status: cs.status }) };
}

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
    const before = goEncoded(decoded.obj);
    let injectTemplateDefaults = false;
    if (!gates.enabled('TemplateNoDefaults')) {
      if (request.operation === 'UPDATE') {
        const old = decodeObject<CloneSet>({ ...request, object: request.oldObject }, 'CloneSet');
        if ('response' in old) return old.response;
        const template = (cs: CloneSet) =>
          JSON.stringify(
            encodeStruct((cs.spec?.template ?? {}) as Record<string, unknown>, 'PodTemplateSpec'),
          );
        injectTemplateDefaults = template(decoded.obj) !== template(old.obj);
      } else injectTemplateDefaults = true;
    }
    const cs = setCloneSetDefaults(structuredClone(decoded.obj), injectTemplateDefaults);
    const after = goEncoded(cs);
    if (JSON.stringify(after) === JSON.stringify(before)) return allowed();
    return patched(request.object, after);
  };
}
