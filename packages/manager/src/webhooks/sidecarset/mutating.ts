import { type AdmissionHandler, allowed, patched } from '@kruise/runtime';
import {
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  sidecarSetHash,
  sidecarSetHashWithoutImage,
} from '../../workload/sidecarset/index.ts';
import { goEncodedWorkload } from '../workload-defaulting.ts';
import { setSidecarSetDefaults } from './defaults.ts';
import { decodeSidecarSet, GO_STRUCT, requestVersion } from './versions.ts';

/**
 * The SidecarSet's defaulting webhook (`msidecarset.kb.io`, both versions, CREATE and UPDATE):
 * upstream's defaults (see `setSidecarSetDefaults`), then the annotations
 * `kruise.io/sidecarset-hash` and `kruise.io/sidecarset-hash-without-image` over the defaulted
 * sidecars; written back as a Go webhook writes the object, as a JSON patch from the object sent.
 */
export const mutateSidecarSet: AdmissionHandler = (request) => {
  const decoded = decodeSidecarSet(request, 'object');
  if ('response' in decoded) return decoded.response;
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const version = requestVersion(request);
  const set = setSidecarSetDefaults(structuredClone(decoded.obj));
  set.metadata = {
    ...set.metadata,
    annotations: {
      ...set.metadata?.annotations,
      [SIDECARSET_HASH_ANNOTATION]: sidecarSetHash(set),
      [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: sidecarSetHashWithoutImage(set),
    },
  };
  const encoded = goEncodedWorkload(set, GO_STRUCT[version]);
  if (JSON.stringify(encoded) === JSON.stringify(goEncodedWorkload(decoded.obj, GO_STRUCT[version])))
    return allowed();
  return patched(request.object, encoded);
};
