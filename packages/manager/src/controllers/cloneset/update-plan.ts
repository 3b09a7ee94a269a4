import type { CloneSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { graceText } from '../../workload/inplaceupdate/state.ts';
import { isPodAllHooked, type LifecycleState, lifecycleState } from '../../workload/lifecycle/state.ts';
import { sortActivePods } from '../../workload/pod-sorter.ts';
import { hasRevision } from '../../workload/revision/pod-revision.ts';
import { sortByPriority, sortByScatter } from '../../workload/update-sort.ts';
import type { Diffs } from './diffs.ts';

/**
 * The pods an update round may move (forward: not at the update revision; rollback: at it),
 * leaving out PreparingDelete pods and pods in an in-place grace period; Updated pods count.
 */
export function updateCandidates(pods: Pod[], updateNum: number, updateRevision: string): Pod[] {
  return pods.filter((p) => {
    const atUpdate = hasRevision(p.metadata?.labels, updateRevision);
    if (updateNum > 0 ? atUpdate : !atUpdate) return false;
    const state = lifecycleState(p);
    if (state === 'PreparingDelete') return false;
    if (state === 'Updated') return true;
    return graceText(p) === undefined;
  });
}

/**
 * The update order (upstream's SortUpdateIndexes): Kubernetes' active-pods order, then the priority
 * strategy, then the scatter strategy, then every PreparingUpdate pod moved to the front.
 */
export function sortUpdateCandidates(cs: CloneSet, all: Pod[], candidates: Pod[]): Pod[] {
  const strategy = cs.spec?.updateStrategy;
  let out = sortActivePods(candidates);
  if (strategy?.priorityStrategy) out = sortByPriority(out, strategy.priorityStrategy);
  if (strategy?.scatterStrategy) out = sortByScatter(all, out, strategy.scatterStrategy);
  const preparing = out.filter((p) => lifecycleState(p) === 'PreparingUpdate');
  return [...preparing, ...out.filter((p) => lifecycleState(p) !== 'PreparingUpdate')];
}

/**
 * The candidates updated this round (upstream's limitUpdateIndexes): at most |updateNum|, and
 * stopping when the unavailable pods at the target revision plus those chosen reach
 * updateMaxUnavailable, or when an available candidate would push the unavailable count there.
 */
export function limitUpdates(
  sorted: Pod[],
  all: Pod[],
  diffs: Pick<Diffs, 'updateNum' | 'updateMaxUnavailable'>,
  targetRevision: string,
  available: (pod: Pod) => boolean,
): Pod[] {
  const wanted = sorted.slice(0, Math.abs(diffs.updateNum));
  let unavailable = 0;
  let targetUnavailable = 0;
  for (const p of all) {
    if (available(p)) continue;
    unavailable++;
    if (hasRevision(p.metadata?.labels, targetRevision)) targetUnavailable++;
  }
  let chosen = 0;
  for (const p of wanted) {
    if (targetUnavailable + chosen >= diffs.updateMaxUnavailable) break;
    if (available(p)) {
      if (unavailable >= diffs.updateMaxUnavailable) break;
      unavailable++;
    }
    chosen++;
  }
  return wanted.slice(0, chosen);
}

/**
 * The lifecycle state a pod moves to at the start of a round (upstream's refreshPodState), or
 * undefined to stay: PreparingNormal → Normal once scheduled (no preNormal hook) or all preNormal
 * labels/finalizers present; PreparingUpdate at the update revision (rolled back while waiting) and
 * Updating once complete → Updated while the inPlaceUpdate hook is not all present, else Normal;
 * Updated → Normal once the hook is back (or there is none).
 */
export function nextLifecycleState(
  cs: CloneSet,
  pod: Pod,
  updateRevision: string,
  updateCompleted: () => boolean,
): LifecycleState | undefined {
  const lifecycle = cs.spec?.lifecycle;
  const afterUpdate = (): LifecycleState =>
    lifecycle && !isPodAllHooked(lifecycle.inPlaceUpdate, pod) ? 'Updated' : 'Normal';
  switch (lifecycleState(pod)) {
    case 'PreparingNormal': {
      const normal = lifecycle?.preNormal
        ? isPodAllHooked(lifecycle.preNormal, pod)
        : Boolean(pod.spec?.nodeName);
      return normal ? 'Normal' : undefined;
    }
    case 'PreparingUpdate':
      return hasRevision(pod.metadata?.labels, updateRevision) ? afterUpdate() : undefined;
    case 'Updating':
      return updateCompleted() ? afterUpdate() : undefined;
    case 'Updated':
      return !lifecycle?.inPlaceUpdate || isPodAllHooked(lifecycle.inPlaceUpdate, pod) ? 'Normal' : undefined;
    default:
      return undefined;
  }
}
