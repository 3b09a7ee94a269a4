import type { CloneSet } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { hookMarksNotReady, isPodHooked, lifecycleState } from '../../workload/lifecycle/state.ts';
import { deleteIgnoringNotFound, type PodControls } from '../../workload/pod-controls.ts';
import { hasRevision } from '../../workload/revision/pod-revision.ts';
import { doItSlowly } from '../../workload/slow-start.ts';
import { isPodAvailable } from './availability.ts';
import { asKube, type CloneSetDeps, cloneSetKey } from './context.ts';
import { calculateDiffs } from './diffs.ts';
import { claimsFor, newVersionedPods } from './new-pods.ts';
import {
  availableInstanceIds,
  choosePodsToDelete,
  deletionsToCancel,
  INSTANCE_ID_LABEL,
  limitByReadiness,
  plannedDeletions,
} from './scale-plan.ts';

/** One side of a scale: the CloneSet as of a revision, and that revision's name. */
export interface Versioned {
  cs: CloneSet;
  revision: string;
}

const isUpdated = (gates: CloneSetDeps['gates']) => (pod: Pod, updateRevision: string) =>
  hasRevision(pod.metadata?.labels, updateRevision) ||
  (gates.enabled('PreparingUpdateAsUpdate') && lifecycleState(pod) === 'PreparingUpdate');

/**
 * The scale step of a CloneSet reconcile (upstream's sync.Scale): cancels PreparingDelete when
 * replicas went back up, creates pods (slow start) within scaleStrategy.maxUnavailable, deletes
 * PreparingDelete pods whose hook is gone, specified deletions within the ready-pod limit, then
 * scale-in. Returns whether it changed anything (the update step is then skipped this round).
 */
export class ScaleControl {
  private readonly d: CloneSetDeps;
  private readonly controls: PodControls;

  constructor(deps: CloneSetDeps, controls: PodControls) {
    this.d = deps;
    this.controls = controls;
  }

  async scale(
    current: Versioned,
    update: Versioned,
    pods: Pod[],
    pvcs: PersistentVolumeClaim[],
  ): Promise<boolean> {
    const cs = update.cs;
    const { specified, preparingDelete, count } = plannedDeletions(cs, pods);
    if (await this.cancelDeletions(cs, pods, preparingDelete, count)) return true;

    const now = this.d.now();
    const diffs = calculateDiffs(cs, pods, {
      currentRevision: current.revision,
      updateRevision: update.revision,
      partitionRollback: this.d.gates.enabled('CloneSetPartitionRollback'),
      scalingExcludePreparingDelete: this.d.scalingExcludePreparingDelete,
      isUpdated: isUpdated(this.d.gates),
      now,
    });
    if (diffs.scaleUpNum > diffs.scaleUpLimit)
      this.d.event(
        cs,
        'Warning',
        'ScaleUpLimited',
        `scaleUp is limited because of scaleStrategy.maxUnavailable, limit: ${diffs.scaleUpLimit}`,
      );
    if (diffs.scaleUpNum > 0) {
      const ids = availableInstanceIds(diffs.scaleUpLimit, pods, pvcs, this.d.random);
      const existing = new Set(pvcs.map((c) => c.metadata?.name ?? ''));
      return this.createPods(current, update, diffs.scaleUpLimit, diffs.scaleUpNumOldRevision, ids, existing);
    }
    const ready = (p: Pod) => isPodAvailable(p, 0, now);
    if (preparingDelete.length && (await this.deletePods(cs, preparingDelete, pvcs))) return true;

    const toDelete = specified.filter((p) => lifecycleState(p) !== 'PreparingDelete');
    let readyLimit = diffs.deleteReadyLimit;
    if (toDelete.length) {
      const limited = limitByReadiness(toDelete, readyLimit, ready);
      readyLimit = limited.readyLimit;
      if (await this.deletePods(cs, limited.pods, pvcs)) return true;
    }
    if (diffs.scaleDownNum > 0) {
      if (count > 0) return false;
      const updated = pods.filter((p) => isUpdated(this.d.gates)(p, update.revision));
      const notUpdated = pods.filter((p) => !isUpdated(this.d.gates)(p, update.revision));
      const chosen = choosePodsToDelete(
        cs,
        diffs.scaleDownNum,
        diffs.scaleDownNumOldRevision,
        notUpdated,
        updated,
        {
          available: (p) => isPodAvailable(p, cs.spec?.minReadySeconds ?? 0, now),
          nodeLabels: this.d.nodeLabels,
        },
      );
      return this.deletePods(cs, limitByReadiness(chosen, readyLimit, ready).pods, pvcs);
    }
    return false;
  }

  /** PreparingDelete pods back to PreparingNormal when replicas went up again (upstream's managePreparingDelete). */
  private async cancelDeletions(
    cs: CloneSet,
    pods: Pod[],
    preparing: Pod[],
    planned: number,
  ): Promise<boolean> {
    let modified = false;
    for (const pod of deletionsToCancel(cs, pods, preparing, planned)) {
      const got = await this.controls.lifecycle.updatePodLifecycle(pod, 'PreparingNormal', false);
      if (got) {
        modified = true;
        this.d.resourceVersionExpectations.expect(got);
      }
    }
    return modified;
  }

  private async createPods(
    current: Versioned,
    update: Versioned,
    total: number,
    currentCount: number,
    ids: string[],
    existingClaims: Set<string>,
  ): Promise<boolean> {
    const key = cloneSetKey(update.cs);
    const pods = newVersionedPods(current, update, total, currentCount, ids, {
      shortHash: this.d.gates.enabled('CloneSetShortHash'),
      now: this.d.now(),
      podReadyGate: this.d.gates.enabled('PodWebhook'),
    });
    for (const p of pods) this.d.scaleExpectations.expectCreation(key, p.metadata!.name!);
    const created = new Set<string>();
    const { successes, error } = await doItSlowly(pods.length, async (i) => {
      const pod = pods[i]!;
      const at = hasRevision(pod.metadata?.labels, current.revision) ? current.cs : update.cs;
      await this.createOnePod(at, pod, existingClaims);
      created.add(pod.metadata!.name!);
    });
    for (const p of pods)
      if (!created.has(p.metadata!.name!)) this.d.scaleExpectations.creationObserved(key, p.metadata!.name!);
    if (error !== undefined) throw error;
    return successes > 0;
  }

  private async createOnePod(cs: CloneSet, pod: Pod, existingClaims: Set<string>): Promise<void> {
    for (const claim of claimsFor(cs, pod.metadata?.labels?.[INSTANCE_ID_LABEL] ?? '').values()) {
      const name = claim.metadata!.name!;
      if (existingClaims.has(name)) continue;
      try {
        await this.d.client.create(Resources.PersistentVolumeClaim, claim as unknown as KubeObject);
      } catch (err) {
        this.d.event(
          cs,
          'Warning',
          'FailedCreate',
          `failed to create pvc: ${message(err)}, pvc: ${JSON.stringify(claim)}`,
        );
        throw err;
      }
    }
    try {
      await this.d.client.create(Resources.Pod, asKube(pod));
    } catch (err) {
      this.d.event(
        cs,
        'Warning',
        'FailedCreate',
        `failed to create pod: ${message(err)}, pod: ${JSON.stringify(pod)}`,
      );
      throw err;
    }
    this.d.event(cs, 'Normal', 'SuccessfulCreate', `succeed to create pod ${pod.metadata?.name}`);
  }

  /**
   * Deletes pods (upstream's deletePods): a pod the preDelete hook holds goes PreparingDelete
   * instead (held not-ready with markPodNotReady); a deleted pod takes its PVCs with it.
   */
  private async deletePods(cs: CloneSet, pods: Pod[], pvcs: PersistentVolumeClaim[]): Promise<boolean> {
    const key = cloneSetKey(cs);
    const hook = cs.spec?.lifecycle?.preDelete;
    let modified = false;
    for (const pod of pods) {
      const name = pod.metadata?.name ?? '';
      if (cs.spec?.lifecycle && isPodHooked(hook, pod)) {
        const got = await this.controls.lifecycle.updatePodLifecycle(
          pod,
          'PreparingDelete',
          hookMarksNotReady(hook),
        );
        if (got) {
          modified = true;
          this.d.resourceVersionExpectations.expect(got);
        }
        continue;
      }
      this.d.scaleExpectations.expectDeletion(key, name);
      try {
        await deleteIgnoringNotFound(this.d.client, Resources.Pod, pod.metadata?.namespace, name);
      } catch (err) {
        this.d.scaleExpectations.deletionObserved(key, name);
        this.d.event(cs, 'Warning', 'FailedDelete', `failed to delete pod ${name}: ${message(err)}`);
        throw err;
      }
      modified = true;
      this.d.event(cs, 'Normal', 'SuccessfulDelete', `succeed to delete pod ${name}`);
      const id = pod.metadata?.labels?.[INSTANCE_ID_LABEL];
      for (const pvc of pvcs) {
        if (pvc.metadata?.labels?.[INSTANCE_ID_LABEL] !== id) continue;
        const claim = pvc.metadata?.name ?? '';
        try {
          await deleteIgnoringNotFound(
            this.d.client,
            Resources.PersistentVolumeClaim,
            pvc.metadata?.namespace,
            claim,
          );
        } catch (err) {
          this.d.event(cs, 'Warning', 'FailedDelete', `failed to delete pvc ${claim}: ${message(err)}`);
          throw err;
        }
      }
    }
    return modified;
  }
}

/** An error's message. */
export const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
