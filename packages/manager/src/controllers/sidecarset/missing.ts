import type { SidecarSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodActive } from '../../workload/pod-state.ts';
import {
  isInjectedWith,
  type NamespaceLabels,
  sidecarSetMatchesPod,
} from '../../workload/sidecarset/index.ts';

/** Event reason on a SidecarSet and a pod that lacks its sidecars (beyond upstream). */
export const SIDECAR_MISSING_REASON = 'SidecarMissing';

/**
 * The pods that should carry the SidecarSet's sidecars but do not (beyond upstream, charts#54):
 * active pods it selects, outside namespaces labelled `control-plane` (never injected), without it
 * in their injected list, and selected by it since their creation (`selectedLate` says which came
 * into its selection later: their labels, their namespace's or its own selection changed) —
 * created while the pod webhook was unreachable. Nothing is missing while injection is paused.
 */
export function podsMissingSidecars(
  sidecarSet: SidecarSet,
  selected: Pod[],
  namespaceLabels: NamespaceLabels,
  selectedLate: (sidecarSet: SidecarSet, pod: Pod) => boolean,
): Pod[] {
  if (sidecarSet.spec?.injectionStrategy?.paused) return [];
  const name = sidecarSet.metadata?.name ?? '';
  return selected.filter((p) => {
    if (!isPodActive(p) || isInjectedWith(p, name)) return false;
    if (selectedLate(sidecarSet, p)) return false;
    if (namespaceLabels(p.metadata?.namespace || 'default')?.['control-plane'] !== undefined) return false;
    return sidecarSetMatchesPod(sidecarSet, p, namespaceLabels);
  });
}

/** The Warning on the SidecarSet naming a pod that lacks its sidecars. */
export const missingOnSidecarSet = (pod: Pod) =>
  `pod ${pod.metadata?.namespace}/${pod.metadata?.name} was created without the sidecars of this SidecarSet (the pod webhook was unreachable); recreate it to inject them`;

/** The Warning on a pod that lacks a SidecarSet's sidecars. */
export const missingOnPod = (sidecarSet: SidecarSet) =>
  `pod was created without the sidecars of SidecarSet ${sidecarSet.metadata?.name} (the pod webhook was unreachable); recreate it to inject them`;
