import type { CloneSet } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { inChunks } from '../../workload/in-chunks.ts';
import { podUpdateNotCompleted } from '../../workload/inplaceupdate/completion.ts';
import type { InPlaceUpdateOptions } from '../../workload/inplaceupdate/control.ts';
import { updateInPlaceThroughLifecycle } from '../../workload/inplaceupdate/through-lifecycle.ts';
import { type PodControls, patchPodLabels } from '../../workload/pod-controls.ts';
import { SPECIFIED_DELETE_LABEL } from '../../workload/pod-state.ts';
import { PUB_REFUSED_RETRY_MS, podsBudgetsAllow } from '../../workload/pub/update-guard.ts';
import {
  cloneSetRevisionAdapter,
  hasRevision,
  POD_TEMPLATE_HASH_LABEL,
  shortHash,
} from '../../workload/revision/pod-revision.ts';
import { isPodAvailable } from './availability.ts';
import type { CloneSetDeps, RequeueAfter } from './context.ts';
import { calculateDiffs } from './diffs.ts';
import { message } from './scale.ts';
import { limitUpdates, nextLifecycleState, sortUpdateCandidates, updateCandidates } from './update-plan.ts';

/** The in-place update options of a CloneSet (upstream's GetUpdateOptions with defaults). */
export function inPlaceOptions(
  cs: CloneSet,
  deps: Pick<CloneSetDeps, 'gates' | 'kubeletHash'>,
): InPlaceUpdateOptions {
  const strategy = cs.spec?.updateStrategy;
  const grace = strategy?.inPlaceUpdateStrategy?.gracePeriodSeconds;
  return {
    gates: {
      envFromMetadata: deps.gates.enabled('InPlaceUpdateEnvFromMetadata'),
      verticalScaling: deps.gates.enabled('InPlaceWorkloadVerticalScaling'),
      recreateOnVolumeClaimTemplateChange: deps.gates.enabled('RecreatePodWhenChangeVCTInCloneSetGate'),
    },
    ...(grace ? { gracePeriodSeconds: grace } : {}),
    ...(strategy?.type === 'InPlaceOnly' ? { ignoreVolumeClaimTemplatesHashDiff: true } : {}),
    revisions: cloneSetRevisionAdapter(deps.gates.enabled('CloneSetShortHash')),
    kubeletHash: deps.kubeletHash,
    verticalScaling: deps.gates.enabled('InPlaceWorkloadVerticalScaling'),
  };
}

/**
 * The update step of a CloneSet reconcile (upstream's sync.Update): refreshes every pod (in-place
 * progress, lifecycle transitions, the pod-template-hash label of old pods), then — unless paused —
 * moves the pods calculateDiffs allows, in update order, within maxUnavailable: in place when the
 * strategy and the change allow it, otherwise by marking them specified-delete for the scale step.
 */
export class UpdateControl {
  private readonly d: CloneSetDeps;
  private readonly controls: PodControls;

  constructor(deps: CloneSetDeps, controls: PodControls) {
    this.d = deps;
    this.controls = controls;
  }

  async update(
    cs: CloneSet,
    current: ControllerRevision,
    update: ControllerRevision,
    revisions: ControllerRevision[],
    pods: Pod[],
    requeue: RequeueAfter,
  ): Promise<void> {
    if (cs.spec?.updateStrategy?.type === 'OnDelete') return;
    const updateName = update.metadata?.name ?? '';
    const touched = await inChunks(pods, async (pod) => {
      const refreshed = await this.refreshPodState(cs, pod, updateName, requeue);
      const fixed = await this.fixPodTemplateHash(pod);
      return refreshed || fixed;
    });
    if (touched.some(Boolean) || cs.spec?.updateStrategy?.paused) return;

    const now = this.d.now();
    const diffs = calculateDiffs(cs, pods, {
      currentRevision: current.metadata?.name ?? '',
      updateRevision: updateName,
      partitionRollback: this.d.gates.enabled('CloneSetPartitionRollback'),
      scalingExcludePreparingDelete: this.d.scalingExcludePreparingDelete,
      now,
    });
    if (diffs.updateNum === 0) return;
    const target = diffs.updateNum > 0 ? update : current;
    const minReady = cs.spec?.minReadySeconds ?? 0;
    const sorted = sortUpdateCandidates(cs, pods, updateCandidates(pods, diffs.updateNum, updateName));
    const chosen = limitUpdates(sorted, pods, diffs, target.metadata?.name ?? '', (p) =>
      isPodAvailable(p, minReady, now),
    );
    const allowed = await podsBudgetsAllow(chosen, this.d.pubUpdateGuard);
    if (allowed.refused) requeue.push(PUB_REFUSED_RETRY_MS);
    for (const delay of await inChunks(allowed.pods, (pod) => this.updatePod(cs, target, revisions, pod)))
      requeue.push(delay);
  }

  /** Moves an in-place update along and the pod's lifecycle state; true when a lifecycle label was written. */
  private async refreshPodState(
    cs: CloneSet,
    pod: Pod,
    updateRevision: string,
    requeue: RequeueAfter,
  ): Promise<boolean> {
    const opts = inPlaceOptions(cs, this.d);
    try {
      requeue.push((await this.controls.inPlace.refresh(pod, opts)).delayMs);
    } catch (err) {
      this.d.log.error(
        { err: message(err), pod: pod.metadata?.name },
        'failed to update pod condition for in-place update',
      );
      throw err;
    }
    const state = nextLifecycleState(
      cs,
      pod,
      updateRevision,
      () => podUpdateNotCompleted(pod, opts) === undefined,
    );
    if (!state) return false;
    const markPodNotReady = cs.spec?.lifecycle?.inPlaceUpdate?.markPodNotReady === true;
    const got = await this.controls.lifecycle.updatePodLifecycle(pod, state, markPodNotReady);
    if (!got) return false;
    this.d.resourceVersionExpectations.expect(got);
    return true;
  }

  /** Adds pod-template-hash to pods created before it existed (upstream's fixPodTemplateHashLabel). */
  private async fixPodTemplateHash(pod: Pod): Promise<boolean> {
    const labels = pod.metadata?.labels ?? {};
    if (POD_TEMPLATE_HASH_LABEL in labels) return false;
    const got = await patchPodLabels(this.d.client, pod, {
      [POD_TEMPLATE_HASH_LABEL]: shortHash(labels['controller-revision-hash'] ?? ''),
    });
    this.d.resourceVersionExpectations.expect(got);
    return true;
  }

  /** Updates one pod to `target`; returns how long to wait (grace period) if anything. */
  private async updatePod(
    cs: CloneSet,
    target: ControllerRevision,
    revisions: ControllerRevision[],
    pod: Pod,
  ): Promise<number | undefined> {
    const type = cs.spec?.updateStrategy?.type;
    const targetName = target.metadata?.name ?? '';
    const podName = pod.metadata?.name ?? '';
    if (type === 'InPlaceIfPossible' || type === 'InPlaceOnly') {
      const old = revisions.find((r) => hasRevision(pod.metadata?.labels, r.metadata?.name ?? ''));
      const step = await updateInPlaceThroughLifecycle(
        {
          controls: this.controls,
          resourceVersionExpectations: this.d.resourceVersionExpectations,
          event: (t, reason, msg) => this.d.event(cs, t, reason, msg),
          now: this.d.now,
        },
        pod,
        old,
        target,
        inPlaceOptions(cs, this.d),
        cs.spec?.lifecycle?.inPlaceUpdate,
      );
      if (step.outcome === 'held') return undefined;
      if (step.outcome === 'updated') return step.delayMs;
      if (type === 'InPlaceOnly')
        throw new Error(`find Pod ${podName} update strategy is InPlaceOnly but can not update in-place`);
    }
    if (pod.metadata?.labels?.[SPECIFIED_DELETE_LABEL] === undefined) {
      try {
        const got = await patchPodLabels(this.d.client, pod, { [SPECIFIED_DELETE_LABEL]: 'true' });
        this.d.resourceVersionExpectations.expect(got);
      } catch (err) {
        this.d.event(
          cs,
          'Warning',
          'FailedUpdatePodReCreate',
          `failed to patch pod specified-delete ${podName} for update(revision ${targetName}): ${message(err)}`,
        );
        throw err;
      }
    }
    this.d.event(
      cs,
      'Normal',
      'SuccessfulUpdatePodReCreate',
      `successfully patch pod ${podName} specified-delete for update(revision ${targetName})`,
    );
    return undefined;
  }
}
