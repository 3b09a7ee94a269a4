import type { DaemonSet } from '@kruise/api';
import { labelSelectorMatches } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { InPlaceUpdateOptions } from '../../workload/inplaceupdate/control.ts';
import { hasInPlaceUpdateGate } from '../../workload/inplaceupdate/readiness.ts';
import type { PodControls } from '../../workload/pod-controls.ts';
import { isPodAvailable } from '../../workload/pod-state.ts';
import { defaultRevisionAdapter } from '../../workload/revision/pod-revision.ts';
import type { RequeueAfter } from '../cloneset/context.ts';
import { markCanary, rollBackCanary, type StableTarget } from './canary.ts';
import { DAEMONSET_HASH_LABEL, type DaemonSetDeps } from './context.ts';
import {
  burstReplicas,
  isPreDeleting,
  nilOrPreDeleting,
  partitionOf,
  placementOn,
  surgeCount,
  unavailableCount,
  updatedPodsOnNode,
} from './placement.ts';
import type { PodSync } from './sync-nodes.ts';

/** The hash a revision labels its pods with. */
export const revisionHash = (r: ControllerRevision) => r.metadata?.labels?.[DAEMONSET_HASH_LABEL] ?? '';

/** The in-place update options of a DaemonSet: pods labelled with the revision's hash. */
export function inPlaceOptions(d: Pick<DaemonSetDeps, 'gates' | 'kubeletHash'>): InPlaceUpdateOptions {
  return {
    gates: {
      envFromMetadata: d.gates.enabled('InPlaceUpdateEnvFromMetadata'),
      verticalScaling: d.gates.enabled('InPlaceWorkloadVerticalScaling'),
    },
    revisions: defaultRevisionAdapter,
    revisionOf: revisionHash,
    kubeletHash: d.kubeletHash,
    verticalScaling: d.gates.enabled('InPlaceWorkloadVerticalScaling'),
  };
}

/**
 * The nodes whose pods the rolling update may touch, in its order (filterDaemonPodsToUpdate):
 * nodes already updated or updating first, then the candidates — those rollingUpdate.selector
 * selects when it is set, from the last node name to the first — at most `nodes − partition`.
 * Unlike upstream (#2387), a node that no longer should run the pod (its labels, affinity or taints
 * changed) takes no part: its pod can neither be updated nor counted unavailable there, so it never
 * holds the rollout back.
 */
export function nodesToUpdate(
  ds: DaemonSet,
  nodes: Node[],
  byNode: Map<string, Pod[]>,
  hash: string,
): string[] {
  const eligible = new Map(
    nodes.filter((n) => placementOn(n, ds).shouldRun).map((n) => [n.metadata?.name ?? '', n]),
  );
  const names = [...eligible.keys()].sort();
  const partition = partitionOf(ds, ds.status?.desiredNumberScheduled ?? 0);
  const selector = ds.spec?.updateStrategy?.rollingUpdate?.selector;
  const updated: string[] = [];
  const updating: string[] = [];
  const candidates: string[] = [];
  for (const name of names.reverse()) {
    const pods = updatedPodsOnNode(ds, byNode.get(name), hash);
    if (!pods || pods.newPod) updated.push(name);
    else if (nilOrPreDeleting(pods.oldPod)) updating.push(name);
    else if (!selector || labelSelectorMatches(selector, eligible.get(name)?.metadata?.labels))
      candidates.push(name);
  }
  const maxUpdate = names.length - partition;
  return maxUpdate <= 0 ? [] : [...updated, ...updating, ...candidates].slice(0, maxUpdate);
}

/**
 * The rolling update (rollingUpdate): without surge, old pods are deleted — or updated in place
 * under InPlaceIfPossible — while fewer than maxUnavailable nodes are unavailable (an unavailable
 * old pod is always replaced); with surge, new pods start beside old ones on up to maxSurge nodes
 * (at once where the old one is unavailable) and an old pod goes once its new one is available.
 */
export class RollingUpdate {
  readonly d: DaemonSetDeps;
  readonly controls: PodControls;
  readonly pods: PodSync;

  constructor(d: DaemonSetDeps, controls: PodControls, pods: PodSync) {
    this.d = d;
    this.controls = controls;
    this.pods = pods;
  }

  async run(
    ds: DaemonSet,
    nodes: Node[],
    byNode: Map<string, Pod[]>,
    current: ControllerRevision,
    old: ControllerRevision[],
    requeue: RequeueAfter,
    stable?: StableTarget,
  ): Promise<void> {
    const hash = revisionHash(current);
    const desired = nodes.filter((n) => placementOn(n, ds).shouldRun).length;
    const maxSurge = surgeCount(ds, desired);
    let maxUnavailable = unavailableCount(ds, desired);
    if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
    const targets = nodesToUpdate(ds, nodes, byNode, hash);
    const now = this.d.now();
    const minReady = ds.spec?.minReadySeconds ?? 0;
    const available = (p: Pod) => isPodAvailable(p, minReady, now);
    // nodes that left a canary go back first; the update goes on in a later round
    if (
      maxSurge === 0 &&
      stable &&
      (await rollBackCanary(this, ds, nodes, byNode, current, stable, maxUnavailable, available, requeue))
    )
      return;
    if (maxSurge === 0) {
      let unavailable = 0;
      const replacements: Pod[] = [];
      const candidates: Pod[] = [];
      for (const name of targets) {
        const pods = updatedPodsOnNode(ds, byNode.get(name), hash);
        if (!pods) {
          unavailable++;
          continue;
        }
        const { newPod, oldPod } = pods;
        if (nilOrPreDeleting(oldPod) === nilOrPreDeleting(newPod)) unavailable++;
        else if (newPod) {
          if (!available(newPod)) unavailable++;
          if (isPreDeleting(newPod)) unavailable++;
        } else if (!available(oldPod!)) replacements.push(oldPod!);
        else if (unavailable < maxUnavailable) candidates.push(oldPod!);
      }
      const room = Math.min(Math.max(maxUnavailable - unavailable, 0), candidates.length);
      let toDelete = [...replacements, ...candidates.slice(0, room)];
      if (ds.spec?.updateStrategy?.rollingUpdate?.rollingUpdateType === 'InPlaceIfPossible')
        toDelete = await this.inPlace(ds, toDelete, current, old, requeue, stable);
      await this.pods.sync(ds, toDelete, [], hash, stable);
      return;
    }
    let surging = 0;
    const toDelete: Pod[] = [];
    const allowed: string[] = [];
    const candidates: string[] = [];
    for (const name of targets) {
      const pods = updatedPodsOnNode(ds, byNode.get(name), hash);
      if (!pods) {
        surging++;
        continue;
      }
      const { newPod, oldPod } = pods;
      if (nilOrPreDeleting(oldPod)) continue;
      if (!newPod) {
        if (!available(oldPod!)) allowed.push(name);
        else if (surging < maxSurge) candidates.push(name);
      } else if (!available(newPod) || isPreDeleting(newPod)) surging++;
      else toDelete.push(oldPod!);
    }
    const room = Math.min(Math.max(maxSurge - surging, 0), candidates.length);
    await this.pods.sync(ds, toDelete, [...allowed, ...candidates.slice(0, room)], hash, stable);
  }

  /**
   * Updates one pod in place from revision `from` to `to` (the update revision, or a canary's stable
   * one), with upstream's events; `mark` changes the pod in the same write (a canary's annotation);
   * false when the change cannot be made in place.
   */
  async updateInPlace(
    ds: DaemonSet,
    pod: Pod,
    from: ControllerRevision | undefined,
    to: ControllerRevision,
    requeue: RequeueAfter,
    mark?: (pod: Pod) => void,
  ): Promise<boolean> {
    try {
      const opts = inPlaceOptions(this.d);
      const res = await this.controls.inPlace.update(
        pod,
        from,
        to,
        mark ? { ...opts, additional: [mark] } : opts,
      );
      if (!res.inPlace) return false;
      this.d.event(
        ds,
        'Normal',
        'SuccessfulUpdatePodInPlace',
        `successfully update pod ${pod.metadata?.name} in-place`,
      );
      if (res.newResourceVersion)
        this.d.resourceVersionExpectations.expect({
          metadata: { ...pod.metadata, resourceVersion: res.newResourceVersion },
        } as Pod);
      requeue.push(res.delayMs);
      return true;
    } catch (err) {
      this.d.event(
        ds,
        'Warning',
        'FailedUpdatePodInPlace',
        `failed to update pod ${pod.metadata?.name} in-place(revision ${to.metadata?.name}): ${(err as Error)?.message ?? err}`,
      );
      throw err;
    }
  }

  /**
   * Updates the pods in place where the change allows it (inPlaceUpdatePods: the pod has the
   * InPlaceUpdateReady gate and its revision differs from the update revision only in images or
   * metadata), at most burstReplicas at once; returns the pods that must be recreated instead.
   */
  private async inPlace(
    ds: DaemonSet,
    pods: Pod[],
    current: ControllerRevision,
    old: ControllerRevision[],
    requeue: RequeueAfter,
    stable: StableTarget | undefined,
  ): Promise<Pod[]> {
    const hash = revisionHash(current);
    // during a canary the pods updated are its canaries
    const mark = stable ? (p: Pod) => markCanary(p, hash) : undefined;
    const opts = inPlaceOptions(this.d);
    const oldRevisionOf = (pod: Pod) =>
      old.find((r) => revisionHash(r) === pod.metadata?.labels?.[DAEMONSET_HASH_LABEL]);
    const recreate: Pod[] = [];
    const updatable: Pod[] = [];
    for (const pod of pods) {
      const from = oldRevisionOf(pod);
      if (!hasInPlaceUpdateGate(pod) || !from || !this.controls.inPlace.canUpdateInPlace(from, current, opts))
        recreate.push(pod);
      else updatable.push(pod);
    }
    const errors: unknown[] = [];
    // beyond burstReplicas, pods wait for a later round (neither updated nor recreated now)
    await Promise.all(
      updatable.slice(0, burstReplicas(ds)).map(async (pod) => {
        try {
          if (!(await this.updateInPlace(ds, pod, oldRevisionOf(pod), current, requeue, mark)))
            recreate.push(pod);
        } catch (err) {
          errors.push(err);
        }
      }),
    );
    if (errors.length) throw errors[0];
    return recreate;
  }
}
