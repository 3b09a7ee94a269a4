import type { SidecarSet } from '@kruise/api';
import { type AdmissionHandler, type AdmissionRequest, allowed, patched } from '@kruise/runtime';
import {
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  SIDECARSET_SELECTION_CHANGED_ANNOTATION,
  sidecarSetHash,
  sidecarSetHashWithoutImage,
} from '../../workload/sidecarset/index.ts';
import { goEncodedWorkload } from '../workload-defaulting.ts';
import { setSidecarSetDefaults } from './defaults.ts';
import { decodeSidecarSet, GO_STRUCT, requestVersion } from './versions.ts';

/** What decides which new pods a SidecarSet is injected into. */
const selection = (s: SidecarSet) =>
  JSON.stringify([
    s.spec?.selector ?? null,
    s.spec?.namespaceSelector ?? null,
    s.spec?.injectionStrategy?.paused ?? false,
    (s.spec as { namespace?: string } | undefined)?.namespace ?? '',
  ]);

/**
 * On an update, the time the SidecarSet's selection last changed: now when this update changes it,
 * else the time the stored object carries (kept when the update leaves the annotation out). Pods
 * created before it are not reported as missing its sidecars (beyond upstream).
 */
function selectionChangedAt(request: AdmissionRequest, set: SidecarSet): string | undefined {
  const old = decodeSidecarSet(request, 'oldObject');
  if ('response' in old) return undefined;
  if (selection(old.obj) !== selection(set)) return `${new Date().toISOString().slice(0, 19)}Z`;
  return (
    set.metadata?.annotations?.[SIDECARSET_SELECTION_CHANGED_ANNOTATION] ??
    old.obj.metadata?.annotations?.[SIDECARSET_SELECTION_CHANGED_ANNOTATION]
  );
}

/**
 * The SidecarSet's defaulting webhook (`msidecarset.kb.io`, both versions, CREATE and UPDATE):
 * upstream's defaults (see `setSidecarSetDefaults`), then the annotations
 * `kruise.io/sidecarset-hash` and `kruise.io/sidecarset-hash-without-image` over the defaulted
 * sidecars, and on an update that changes which pods it selects `kruise.io/sidecarset-selection-changed-at`; written back as a Go webhook writes the object, as a JSON patch from the object sent.
 */
export const mutateSidecarSet: AdmissionHandler = (request) => {
  const decoded = decodeSidecarSet(request, 'object');
  if ('response' in decoded) return decoded.response;
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const version = requestVersion(request);
  const set = setSidecarSetDefaults(structuredClone(decoded.obj));
  const selectionChanged = request.operation === 'UPDATE' ? selectionChangedAt(request, set) : undefined;
  set.metadata = {
    ...set.metadata,
    annotations: {
      ...set.metadata?.annotations,
      [SIDECARSET_HASH_ANNOTATION]: sidecarSetHash(set),
      [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: sidecarSetHashWithoutImage(set),
      ...(selectionChanged ? { [SIDECARSET_SELECTION_CHANGED_ANNOTATION]: selectionChanged } : {}),
    },
  };
  const encoded = goEncodedWorkload(set, GO_STRUCT[version]);
  if (JSON.stringify(encoded) === JSON.stringify(goEncodedWorkload(decoded.obj, GO_STRUCT[version])))
    return allowed();
  return patched(request.object, encoded);
};
