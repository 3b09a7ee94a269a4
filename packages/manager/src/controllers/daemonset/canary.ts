import type { DaemonSet } from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { templateFromRevision } from '../../workload/inplaceupdate/calculate.ts';
import { hasInPlaceUpdateGate } from '../../workload/inplaceupdate/readiness.ts';
import type { RequeueAfter } from '../cloneset/context.ts';
import { DAEMONSET_HASH_LABEL } from './context.ts';
import { isPreDeleting, placementOn, updatedPodsOnNode } from './placement.ts';
import { inPlaceOptions, type RollingUpdate, revisionHash } from './rolling-update.ts';

/**
 * A canary by node labels (`rollingUpdate.selector`): the nodes it does not pick keep the revision
 * they run — the stable one — also when they get a new pod, and a node that leaves the canary (its
 * label removed) goes back to it (#1871; upstream leaves such a node at the new revision).
 */
export interface StableTarget {
  revision: ControllerRevision;
  hash: string;
  template: PodTemplateSpec;
  /** Whether the canary picks the node (its pod goes to the update revision). */
  picks(node: string): boolean;
}

/** Whether the selector picks a node (NodeShouldUpdateBySelector): a non-empty selector that matches its labels. */
export function selectorPicks(ds: DaemonSet, labels: Record<string, string> | undefined): boolean {
  const strategy = ds.spec?.updateStrategy;
  const selector = strategy?.rollingUpdate?.selector;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate' || !selector) return false;
  const empty = !Object.keys(selector.matchLabels ?? {}).length && !selector.matchExpressions?.length;
  return !empty && labelSelectorMatches(selector, labels);
}

/**
 * The stable revision of a canary rollout: among the nodes the selector does not pick, the old
 * revision most of their pods run (the newest on a tie); undefined without a selector or when they
 * all run the update revision already.
 */
export function stableTarget(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  update: ControllerRevision,
  old: ControllerRevision[],
): StableTarget | undefined {
  if (!ds.spec?.updateStrategy?.rollingUpdate?.selector) return undefined;
  const hash = revisionHash(update);
  const labelsOf = new Map(nodes.map((n) => [n.metadata?.name ?? '', n.metadata?.labels]));
  const picks = (node: string) => selectorPicks(ds, labelsOf.get(node));
  const counts = new Map<string, number>();
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    if (picks(name) || !placementOn(node, ds).shouldRun) continue;
    for (const pod of byNode.get(name) ?? []) {
      const h = pod.metadata?.labels?.[DAEMONSET_HASH_LABEL];
      if (h && h !== hash && !pod.metadata?.deletionTimestamp) counts.set(h, (counts.get(h) ?? 0) + 1);
    }
  }
  const revision = old
    .filter((r) => counts.has(revisionHash(r)))
    .sort(
      (a, b) => counts.get(revisionHash(b))! - counts.get(revisionHash(a))! || b.revision - a.revision,
    )[0];
  if (!revision) return undefined;
  return { revision, hash: revisionHash(revision), template: templateFromRevision(revision), picks };
}

/**
 * Rolls the pods of nodes a canary no longer picks (their label removed) back from the update
 * revision to the stable one, within maxUnavailable: in place where the strategy and the change
 * allow it, else by deleting them (the manage pass recreates them at the stable revision). Returns
 * whether it touched a pod. Only without surge (a surging node keeps old and new side by side).
 */
export async function rollBackCanary(
  rolling: RollingUpdate,
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  current: ControllerRevision,
  stable: StableTarget,
  maxUnavailable: number,
  available: (p: Pod) => boolean,
  requeue: RequeueAfter,
): Promise<boolean> {
  const hash = revisionHash(current);
  let unavailable = 0;
  const back: Pod[] = [];
  for (const node of [...nodes].sort((a, b) =>
    (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? 1 : -1,
  )) {
    const name = node.metadata?.name ?? '';
    if (!placementOn(node, ds).shouldRun) continue;
    const pods = updatedPodsOnNode(ds, byNode.get(name), hash);
    const live = [pods?.newPod, pods?.oldPod].filter((p): p is Pod => p !== undefined);
    if (!live.some((p) => available(p) && !isPreDeleting(p))) unavailable++;
    else if (!stable.picks(name) && pods?.newPod && !pods.oldPod) back.push(pods.newPod);
  }
  const chosen = back.slice(0, Math.max(maxUnavailable - unavailable, 0));
  if (!chosen.length) return false;
  const opts = inPlaceOptions(rolling.d);
  const inPlace =
    ds.spec?.updateStrategy?.rollingUpdate?.rollingUpdateType === 'InPlaceIfPossible' &&
    rolling.controls.inPlace.canUpdateInPlace(current, stable.revision, opts);
  const recreate: Pod[] = [];
  for (const pod of chosen) {
    if (!inPlace || !hasInPlaceUpdateGate(pod)) {
      recreate.push(pod);
      continue;
    }
    if (!(await rolling.updateInPlace(ds, pod, current, stable.revision, requeue))) recreate.push(pod);
  }
  if (recreate.length) await rolling.pods.sync(ds, recreate, [], hash, stable);
  return true;
}
