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
 * active pods it selects, created after it, outside namespaces labelled `control-plane` (never
 * injected), without it in their injected list — created while the pod webhook was unreachable.
 * Nothing is missing while injection is paused.
 */
export function podsMissingSidecars(
  sidecarSet: SidecarSet,
  selected: Pod[],
  namespaceLabels: NamespaceLabels,
): Pod[] {
  if (sidecarSet.spec?.injectionStrategy?.paused) return [];
  const name = sidecarSet.metadata?.name ?? '';
  const since = Date.parse(sidecarSet.metadata?.creationTimestamp ?? '');
  return selected.filter((p) => {
    if (!isPodActive(p) || isInjectedWith(p, name)) return false;
    const created = Date.parse(p.metadata?.creationTimestamp ?? '');
    if (!(created > since)) return false;
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
