import type { StatefulSet, StatefulSetStatus } from '@kruise/api';
import { intPercentValue } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { inChunks } from '../../workload/in-chunks.ts';
import { podUpdateNotCompleted } from '../../workload/inplaceupdate/completion.ts';
import { isSpecifiedDelete } from '../../workload/pod-state.ts';
import { PUB_REFUSED_RETRY_MS, podsBudgetsAllow } from '../../workload/pub/update-guard.ts';
import type { RequeueAfter } from '../cloneset/context.ts';
import { claimsCompatible, claimsExpanded, claimsReady, expandClaims } from './claim-resize.ts';
import type { StatefulSetDeps } from './context.ts';
import { isCreated, isHealthy, isTerminating, runningAndAvailable } from './pod-health.ts';
import { inPlaceOptions, type PodSteps } from './pod-steps.ts';
import { podRevision } from './revisions.ts';

/** What the rolling update of one round works on. */
export interface UpdateRound {
  set: StatefulSet;
  current: ControllerRevision;
  update: ControllerRevision;
  revisions: ControllerRevision[];
  pods: Pod[];
  replicas: (Pod | undefined)[];
  /** The replica slots to update, in order (`podsToUpdate`). */
  targets: number[];
  status: StatefulSetStatus;
  requeue: RequeueAfter;
  minReadySeconds: number;
}

/** The most pods a rolling update may have unavailable: maxUnavailable (default 1) of replicas, rounded down, at least 1. */
export function rollingMaxUnavailable(set: StatefulSet): number {
  const value = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  return Math.max(1, intPercentValue(value, set.spec?.replicas ?? 1, false));
}

/**
 * The rolling update of a round (upstream's rollingUpdateStatefulsetPods): every pod's state is
 * refreshed first, a chunk of pods at a time (a changed lifecycle state ends the round); unless paused, pods marked
 * specified-delete go first, within maxUnavailable and regardless of the partition; then the targets
 * in update order, each while fewer than maxUnavailable pods are unavailable (or it is unavailable
 * itself): its claims expanded first (gate StatefulSetAutoResizePVCGate with OnPodRollingUpdate),
 * then in place when allowed and possible, else deleted to be recreated at the update revision. The
 * chosen targets are written a chunk at a time, once all are chosen.
 */
export class RollingUpdate {
  private readonly d: StatefulSetDeps;
  private readonly steps: PodSteps;

  constructor(deps: StatefulSetDeps, steps: PodSteps) {
    this.d = deps;
    this.steps = steps;
  }

  private resizeOnUpdate(set: StatefulSet): boolean {
    return (
      this.d.gates.enabled('StatefulSetAutoResizePVCGate') &&
      set.spec?.volumeClaimUpdateStrategy?.type === 'OnPodRollingUpdate'
    );
  }

  async run(round: UpdateRound): Promise<void> {
    const { set, status } = round;
    const updateName = round.update.metadata?.name ?? '';
    // the replica pass refreshed its pods already: their stored versions are in the replica slots
    // (upstream reads its cache again here, and writes the same condition and state twice)
    const slots = new Map(round.replicas.filter((p) => p !== undefined).map((p) => [p.metadata?.name, p]));
    round.pods = round.pods.map((p) => slots.get(p.metadata?.name) ?? p);
    // every pod's refresh is its own writes: a chunk of pods at a time, as CloneSet's
    const refreshed = await inChunks(round.pods, (pod) => this.steps.refreshPodState(set, pod, updateName));
    for (const r of refreshed) round.requeue.push(r.delayMs);
    if (refreshed.some((r) => r.modified) || set.spec?.updateStrategy?.rollingUpdate?.paused) return;
    const maxUnavailable = rollingMaxUnavailable(set);
    const unavailable = await this.unavailablePods(round);
    const specified = await this.specifiedDeletes(round, maxUnavailable, unavailable);
    const targets = await this.chooseTargets(round, maxUnavailable, unavailable, specified);
    const allowed = await podsBudgetsAllow(targets, this.d.pubUpdateGuard);
    if (allowed.refused) round.requeue.push(PUB_REFUSED_RETRY_MS);
    const chosen = allowed.pods;
    // the chosen pods' writes do not depend on each other: a chunk of pods at a time, as CloneSet's
    const outcomes = await inChunks(chosen, async (pod) => {
      const inPlace = await this.steps.inPlaceUpdatePod(set, pod, round.update, round.revisions);
      round.requeue.push(inPlace.delayMs);
      return inPlace.inPlace || (await this.steps.deletePod(set, pod)).deleted;
    });
    chosen.forEach((pod, i) => {
      if (outcomes[i] && podRevision(pod) === round.current.metadata?.name) status.currentReplicas--;
    });
  }

  /**
   * The targets this round updates, in update order (upstream's loop over podsToUpdate): each while
   * fewer than maxUnavailable pods are unavailable, or when it is unavailable itself; each chosen pod
   * then counts as unavailable. Claims are expanded first where the set asks for it.
   */
  private async chooseTargets(
    round: UpdateRound,
    maxUnavailable: number,
    unavailable: Set<string>,
    specified: Set<string>,
  ): Promise<Pod[]> {
    const { set, replicas } = round;
    const updateName = round.update.metadata?.name ?? '';
    const resize = this.resizeOnUpdate(set);
    const chosen: Pod[] = [];
    for (const i of round.targets) {
      const pod = replicas[i]!;
      // a pod created this round (or not yet) is left to the next one
      if (!isCreated(pod)) continue;
      const claimsMatch = resize ? await claimsCompatible(this.d, set, pod) : true;
      if (podRevision(pod) === updateName && claimsMatch) continue;
      const name = pod.metadata?.name ?? '';
      if (unavailable.size >= maxUnavailable && !unavailable.has(name)) break;
      if (resize) {
        // claims are expanded before their pod is updated, and only once a pod uses them
        if (!claimsMatch) await expandClaims(this.d, set, pod);
        if (!(await claimsExpanded(this.d, set, pod))) {
          unavailable.add(name);
          continue;
        }
      }
      if (specified.has(name) || isTerminating(pod)) continue;
      chosen.push(pod);
      unavailable.add(name);
    }
    return chosen;
  }

  /**
   * The replicas that count as unavailable: unhealthy or terminating, updating in place, not yet
   * ready for minReadySeconds (looked at again then), or waiting for their claims to be expanded.
   */
  private async unavailablePods(round: UpdateRound): Promise<Set<string>> {
    const { set } = round;
    const out = new Set<string>();
    const opts = inPlaceOptions(set, this.d);
    for (const pod of round.replicas) {
      if (!pod) continue;
      const name = pod.metadata?.name ?? '';
      if (!isHealthy(pod) || podUpdateNotCompleted(pod, opts) !== undefined) {
        out.add(name);
        continue;
      }
      const { available, waitMs } = runningAndAvailable(pod, round.minReadySeconds, this.d.now());
      if (!available) {
        out.add(name);
        round.requeue.push(waitMs);
        continue;
      }
      if (this.resizeOnUpdate(set) && !(await claimsReady(this.d, set, pod))) out.add(name);
    }
    return out;
  }

  /**
   * Deletes the pods marked specified-delete, highest ordinal first, while the unavailable pods are
   * fewer than maxUnavailable (an unavailable one may always go); returns their names.
   */
  private async specifiedDeletes(
    round: UpdateRound,
    maxUnavailable: number,
    unavailable: Set<string>,
  ): Promise<Set<string>> {
    const out = new Set<string>();
    const { status } = round;
    for (let i = round.replicas.length - 1; i >= 0; i--) {
      const pod = round.replicas[i];
      if (!pod || !isSpecifiedDelete(pod)) continue;
      const name = pod.metadata?.name ?? '';
      if (unavailable.size >= maxUnavailable && !unavailable.has(name)) continue;
      out.add(name);
      if ((await this.steps.deletePod(round.set, pod)).deleted) {
        if (podRevision(pod) === round.current.metadata?.name) status.currentReplicas--;
        else if (podRevision(pod) === round.update.metadata?.name) status.updatedReplicas--;
      }
      unavailable.add(name);
    }
    return out;
  }
}
