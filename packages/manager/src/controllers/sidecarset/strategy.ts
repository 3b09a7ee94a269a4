import type { SidecarSet, UpdateScatterTerm } from '@kruise/api';
import { deprecatedIntPercentValue, labelSelectorMatches } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { sortActivePods } from '../../workload/pod-sorter.ts';
import { isPodSidecarUpdated } from '../../workload/sidecarset/index.ts';
import { sortByPriority, sortByScatter } from '../../workload/update-sort.ts';
import { partitionReplicas } from '../cloneset/partition.ts';
import { isPodReadyForSidecarSet, isPodStateConsistent, sidecarSetUpgradable } from './pod-state.ts';

/** The pods to upgrade this round and those that cannot be upgraded in place. */
export interface UpgradePlan {
  upgrade: Pod[];
  notUpgradable: Pod[];
}

/** Scatter terms with `*` values expanded to each value the pods carry (upstream's parseUpdateScatterTerms). */
function scatterTerms(terms: UpdateScatterTerm[] | undefined, pods: Pod[]): UpdateScatterTerm[] | undefined {
  if (!terms) return undefined;
  const out: UpdateScatterTerm[] = [];
  const add = (t: UpdateScatterTerm) => {
    if (!out.some((o) => o.key === t.key && o.value === t.value)) out.push(t);
  };
  for (const term of terms) {
    if (term.value !== '*') add(term);
    else
      for (const p of pods) {
        const v = p.metadata?.labels?.[term.key];
        if (v !== undefined) add({ key: term.key, value: v });
      }
  }
  return out;
}

/** An IntOrString's value of `total` as upstream reads maxUnavailable (an unreadable value gives 0). */
function maxUnavailableOf(value: number | string, total: number): number {
  try {
    return deprecatedIntPercentValue(value, total, true);
  } catch {
    return 0;
  }
}

/**
 * How many of the ordered candidates to upgrade (upstream's calculateUpgradeCount): all but
 * `partition` of them, not-ready candidates freely, ready ones while the updated pods not yet ready
 * or consistent stay under maxUnavailable (default 1).
 */
function upgradeCount(sidecarSet: SidecarSet, candidates: Pod[], pods: Pod[]): number {
  const strategy = sidecarSet.spec?.updateStrategy ?? {};
  let partition = 0;
  try {
    partition = partitionReplicas(strategy.partition, pods.length);
  } catch {
    partition = 0;
  }
  if (candidates.length - partition <= 0) return 0;
  const waiting = candidates.slice(0, candidates.length - partition);
  const maxUnavailable =
    strategy.maxUnavailable === undefined ? 1 : maxUnavailableOf(strategy.maxUnavailable, pods.length);
  let unavailable = pods.filter(
    (p) =>
      isPodSidecarUpdated(sidecarSet, p) &&
      (!isPodStateConsistent(sidecarSet, p) || !isPodReadyForSidecarSet(sidecarSet, p)),
  ).length;
  let count = 0;
  for (const p of waiting) {
    if (!isPodReadyForSidecarSet(sidecarSet, p)) {
      count++;
      continue;
    }
    if (unavailable >= maxUnavailable) break;
    unavailable++;
    count++;
  }
  return count;
}

/**
 * The next pods to upgrade (upstream's spreading strategy): of the matched pods not at the latest
 * hash and picked by `updateStrategy.selector`, those the SidecarSet can upgrade and whose last
 * upgrade is done, ordered not-ready first, then by priority, then scatter, cut to the batch size;
 * and those it cannot upgrade (hash-without-image differs).
 */
export function nextUpgradePods(sidecarSet: SidecarSet, pods: Pod[]): UpgradePlan {
  const strategy = sidecarSet.spec?.updateStrategy ?? {};
  const picked = (p: Pod) =>
    !strategy.selector || labelSelectorMatches(strategy.selector, p.metadata?.labels);
  const waiting: Pod[] = [];
  const notUpgradable: Pod[] = [];
  for (const p of pods) {
    if (isPodSidecarUpdated(sidecarSet, p) || !picked(p)) continue;
    const { canUpgrade, consistent } = sidecarSetUpgradable(sidecarSet, p);
    if (canUpgrade && consistent) waiting.push(p);
    else if (!canUpgrade) notUpgradable.push(p);
  }
  let ordered = sortActivePods(waiting);
  ordered = sortByPriority(ordered, strategy.priorityStrategy);
  ordered = sortByScatter(pods, ordered, scatterTerms(strategy.scatterStrategy, pods));
  return { upgrade: ordered.slice(0, upgradeCount(sidecarSet, ordered, pods)), notUpgradable };
}
