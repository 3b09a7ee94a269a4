import type { SidecarSet } from '@kruise/api';
import { goMarshal, kubeTime } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { type InPlaceUpdateState, serializeState } from '../../workload/inplaceupdate/state.ts';
import { podContainerStatuses } from '../../workload/pod-containers.ts';
import {
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_INPLACE_UPDATE_STATE_ANNOTATION,
} from '../../workload/sidecarset/index.ts';
import { sidecarUpdateStates } from '../../workload/sidecarset/update-completion.ts';

/**
 * Records in the pod's annotations the imageIDs the `changed` containers ran before this update
 * (upstream's UpdatePodAnnotationsInUpgrade), so a changed imageID later shows the update done; the
 * SidecarSet's entry keeps its first revision and time. Mutates `pod`.
 */
export function recordUpdateState(
  sidecarSet: SidecarSet,
  pod: Pod,
  changed: string[],
  now = Date.now(),
): void {
  const states = sidecarUpdateStates(pod) ?? {};
  const name = sidecarSet.metadata?.name ?? '';
  const state: InPlaceUpdateState = states[name] ?? {
    revision: sidecarSet.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION] ?? '',
    updateTimestamp: kubeTime(now),
  };
  const last = { ...(state.lastContainerStatuses ?? {}) };
  const statuses = podContainerStatuses(pod);
  for (const c of changed) last[c] = { imageID: statuses.get(c)?.imageID ?? '' };
  states[name] = { ...state, lastContainerStatuses: last };
  const ordered = Object.fromEntries(
    Object.keys(states)
      .sort()
      .map((k) => [k, JSON.parse(serializeState(states[k]!))]),
  );
  pod.metadata = { ...pod.metadata, annotations: { ...pod.metadata?.annotations } };
  pod.metadata.annotations![SIDECARSET_INPLACE_UPDATE_STATE_ANNOTATION] = goMarshal(ordered);
}
