import type { Pod } from 'kubernetes-types/core/v1.js';
import type { InPlaceUpdateState } from '../inplaceupdate/state.ts';
import { podContainerStatuses, podContainers } from '../pod-containers.ts';
import { SIDECARSET_INPLACE_UPDATE_STATE_ANNOTATION } from './keys.ts';

/**
 * The pod's `kruise.io/sidecarset-inplace-update-state` by SidecarSet: undefined when absent (the
 * sidecars were only injected, never upgraded), null when unreadable.
 */
export function sidecarUpdateStates(pod: Pod): Record<string, InPlaceUpdateState> | undefined | null {
  const raw = pod.metadata?.annotations?.[SIDECARSET_INPLACE_UPDATE_STATE_ANNOTATION];
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, InPlaceUpdateState>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Whether the pod's runtime has caught up with the images of its sidecar containers since their
 * last in-place update (upstream's IsSidecarContainerUpdateCompleted): a container whose imageID is
 * still the one recorded before the update while its image changed is not done.
 */
export function isSidecarUpdateCompleted(pod: Pod, sidecarSets: string[], containers: Set<string>): boolean {
  const states = sidecarUpdateStates(pod);
  if (states === undefined) return true;
  if (states === null) return false;
  const last = new Map<string, string | undefined>();
  for (const name of sidecarSets)
    for (const [c, s] of Object.entries(states[name]?.lastContainerStatuses ?? {})) last.set(c, s?.imageID);
  const images = podContainers(pod);
  for (const s of podContainerStatuses(pod).values()) {
    if (!containers.has(s.name) || !last.has(s.name)) continue;
    if (last.get(s.name) === s.imageID && images.get(s.name)?.image !== s.image) return false;
  }
  return true;
}
