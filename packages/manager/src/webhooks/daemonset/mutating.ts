import { type AdmissionHandler, allowed, patched } from '@kruise/runtime';
import { goEncodedWorkload } from '../workload-defaulting.ts';
import { setDaemonSetDefaults } from './defaults.ts';
import { decodeDaemonSet, GO_STRUCT, requestVersion } from './versions.ts';

/**
 * Advanced DaemonSet's defaulting webhook (`mdaemonset.kb.io`, both versions): upstream's defaults
 * at the request's version (see `setDaemonSetDefaults`), written back as a Go webhook writes the
 * object, as a JSON patch from the object sent; nothing when there was nothing to default.
 */
export const mutateDaemonSet: AdmissionHandler = (request) => {
  const decoded = decodeDaemonSet(request, 'object');
  if ('response' in decoded) return decoded.response;
  const version = requestVersion(request);
  const ds = setDaemonSetDefaults(structuredClone(decoded.obj), version);
  const encoded = goEncodedWorkload(ds, GO_STRUCT[version]);
  if (JSON.stringify(encoded) === JSON.stringify(goEncodedWorkload(decoded.obj, GO_STRUCT[version])))
    return allowed();
  return patched(request.object, encoded);
};
