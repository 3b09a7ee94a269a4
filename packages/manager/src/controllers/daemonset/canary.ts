import type { DaemonSet, LabelSelector } from '@kruise/api';
import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat';
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

/**
 * Annotation on a pod that got the update revision as a canary (its node picked by the selector):
 * its value is that revision's hash. Only such a pod is rolled back when its node leaves the canary.
 */
export const CANARY_ANNOTATION = 'apps.kruise.io/daemonset-canary-revision';

/** The rolling update's node selector, when it is a canary: a RollingUpdate with a non-empty selector. */
export function canarySelector(ds: DaemonSet): LabelSelector | undefined {
  const strategy = ds.spec?.updateStrategy;
  const selector = strategy?.rollingUpdate?.selector;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate' || labelSelectorIsEmpty(selector))
    return undefined;
  return selector;
}

/** Whether the selector picks a node (NodeShouldUpdateBySelector): a non-empty selector that matches its labels. */
export function selectorPicks(ds: DaemonSet, labels: Record<string, string> | undefined): boolean {
  const selector = canarySelector(ds);
  return selector !== undefined && labelSelectorMatches(selector, labels);
}

/** Marks a pod (a template, or a pod being updated in place) as a canary of the revision `hash`. */
export function markCanary(obj: { metadata?: { annotations?: Record<string, string> } }, hash: string): void {
  obj.metadata = {
    ...obj.metadata,
    annotations: { ...obj.metadata?.annotations, [CANARY_ANNOTATION]: hash },
  };
}

/**
 * The stable revision of a canary rollout: among the nodes the selector does not pick, the old
 * revision most of their pods run (the newest on a tie); undefined without a canary (no selector, an
 * empty one, or OnDelete) or when those nodes all run the update revision already.
 */
export function stableTarget(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  update: ControllerRevision,
  old: ControllerRevision[],
): StableTarget | undefined {
  if (!canarySelector(ds)) return undefined;
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
 * Rolls the canaries of the update revision (pods marked {@link CANARY_ANNOTATION}) whose node the
 * selector no longer picks (their label removed) back to the stable revision, within maxUnavailable: in place where the strategy and the change
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
    else if (
      !stable.picks(name) &&
      pods?.newPod &&
      !pods.oldPod &&
      pods.newPod.metadata?.annotations?.[CANARY_ANNOTATION] === hash
    )
      back.push(pods.newPod);
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
    const unmark = (p: Pod) => {
      if (p.metadata?.annotations) delete p.metadata.annotations[CANARY_ANNOTATION];
    };
    if (!(await rolling.updateInPlace(ds, pod, current, stable.revision, requeue, unmark)))
      recreate.push(pod);
  }
  if (recreate.length) await rolling.pods.sync(ds, recreate, [], hash, stable);
  return true;
}
