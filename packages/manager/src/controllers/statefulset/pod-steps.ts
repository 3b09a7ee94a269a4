import type { StatefulSet } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podUpdateNotCompleted } from '../../workload/inplaceupdate/completion.ts';
import type { InPlaceUpdateOptions } from '../../workload/inplaceupdate/control.ts';
import { updateInPlaceThroughLifecycle } from '../../workload/inplaceupdate/through-lifecycle.ts';
import {
  isPodAllHooked,
  isPodHooked,
  type LifecycleState,
  lifecycleState,
} from '../../workload/lifecycle/state.ts';
import type { PodControls } from '../../workload/pod-controls.ts';
import { defaultRevisionAdapter } from '../../workload/revision/pod-revision.ts';
import { type StatefulSetDeps, setKey } from './context.ts';
import type { StatefulPodControl } from './pod-control.ts';
import { podRevision } from './revisions.ts';

/** The in-place update options of a set (upstream's defaults, the set's grace period). */
export function inPlaceOptions(
  set: StatefulSet,
  d: Pick<StatefulSetDeps, 'gates' | 'kubeletHash'>,
): InPlaceUpdateOptions {
  const grace = set.spec?.updateStrategy?.rollingUpdate?.inPlaceUpdateStrategy?.gracePeriodSeconds;
  return {
    gates: {
      envFromMetadata: d.gates.enabled('InPlaceUpdateEnvFromMetadata'),
      verticalScaling: d.gates.enabled('InPlaceWorkloadVerticalScaling'),
    },
    ...(grace ? { gracePeriodSeconds: grace } : {}),
    revisions: defaultRevisionAdapter,
    kubeletHash: d.kubeletHash,
    verticalScaling: d.gates.enabled('InPlaceWorkloadVerticalScaling'),
  };
}

/** What a deletion did: `modified` — the pod changed (deleted, or moved to PreparingDelete); `deleted` — it is being deleted. */
export interface DeleteOutcome {
  modified: boolean;
  deleted: boolean;
}

/**
 * The steps a reconcile takes on one pod (upstream's deletePod, refreshPodState and
 * inPlaceUpdatePod of the StatefulSet control), over the shared lifecycle and in-place libraries.
 */
export class PodSteps {
  private readonly d: StatefulSetDeps;
  private readonly controls: PodControls;
  private readonly podControl: StatefulPodControl;

  constructor(deps: StatefulSetDeps, controls: PodControls, podControl: StatefulPodControl) {
    this.d = deps;
    this.controls = controls;
    this.podControl = podControl;
  }

  /** Deletes the pod, or with a preDelete hook on it, moves it to PreparingDelete first. */
  async deletePod(set: StatefulSet, pod: Pod): Promise<DeleteOutcome> {
    const hook = set.spec?.lifecycle?.preDelete;
    if (hook && isPodHooked(hook, pod)) {
      const got = await this.controls.lifecycle.updatePodLifecycle(
        pod,
        'PreparingDelete',
        hook.markPodNotReady === true,
      );
      if (got) this.d.resourceVersionExpectations.expect(got);
      return { modified: got !== undefined, deleted: false };
    }
    const key = setKey(set);
    this.d.scaleExpectations.expectDeletion(key, pod.metadata?.name ?? '');
    try {
      await this.podControl.deletePod(set, pod);
    } catch (err) {
      this.d.scaleExpectations.deletionObserved(key, pod.metadata?.name);
      throw err;
    }
    return { modified: true, deleted: true };
  }

  /**
   * Moves an in-place update along and the pod's lifecycle state (upstream's refreshPodState);
   * returns whether a lifecycle label was written, the pod as this step left it (the stored object
   * after its writes, else the one given) and how long to wait for a grace period.
   */
  async refreshPodState(
    set: StatefulSet,
    pod: Pod,
    updateRevision: string,
  ): Promise<{ modified: boolean; pod: Pod; delayMs?: number }> {
    const opts = inPlaceOptions(set, this.d);
    const { delayMs, written } = await this.controls.inPlace.refresh(pod, opts);
    const latest = written ?? pod;
    const wait = delayMs ? { delayMs } : {};
    const lifecycle = set.spec?.lifecycle;
    let state: LifecycleState | undefined;
    switch (lifecycleState(pod)) {
      case 'PreparingNormal':
        if (!lifecycle?.preNormal || isPodAllHooked(lifecycle.preNormal, pod)) state = 'Normal';
        break;
      case 'PreparingUpdate':
        // rolled back to the revision it has: nothing to update, only the state moves on (#1156)
        if (podRevision(pod) === updateRevision)
          state = lifecycle && !isPodAllHooked(lifecycle.inPlaceUpdate, pod) ? 'Updated' : 'Normal';
        break;
      case 'Updating':
        if (podUpdateNotCompleted(pod, opts) === undefined)
          state = lifecycle && !isPodAllHooked(lifecycle.inPlaceUpdate, pod) ? 'Updated' : 'Normal';
        break;
      case 'Updated':
        if (!lifecycle?.inPlaceUpdate || isPodAllHooked(lifecycle.inPlaceUpdate, pod)) state = 'Normal';
        break;
    }
    if (!state) return { modified: false, pod: latest, ...wait };
    const got = await this.controls.lifecycle.updatePodLifecycle(
      latest,
      state,
      lifecycle?.inPlaceUpdate?.markPodNotReady === true,
    );
    if (got) this.d.resourceVersionExpectations.expect(got);
    return { modified: got !== undefined, pod: got ?? latest, ...wait };
  }

  /**
   * Updates the pod in place when the strategy allows it and the change can be made in place
   * (upstream's inPlaceUpdatePod): through PreparingUpdate when it has an inPlaceUpdate hook, then
   * Updating. Returns whether the pod is (being) updated in place; false means recreate it.
   */
  async inPlaceUpdatePod(
    set: StatefulSet,
    pod: Pod,
    update: ControllerRevision,
    revisions: ControllerRevision[],
  ): Promise<{ inPlace: boolean; delayMs?: number }> {
    const rolling = set.spec?.updateStrategy?.rollingUpdate;
    const policy = rolling?.podUpdatePolicy ?? 'ReCreate';
    if (!rolling || (policy !== 'InPlaceIfPossible' && policy !== 'InPlaceOnly')) return { inPlace: false };
    const old = revisions.find((r) => r.metadata?.name === podRevision(pod));
    const step = await updateInPlaceThroughLifecycle(
      {
        controls: this.controls,
        resourceVersionExpectations: this.d.resourceVersionExpectations,
        event: (type, reason, message) => this.d.event(set, type, reason, message),
        now: this.d.now,
      },
      pod,
      old,
      update,
      inPlaceOptions(set, this.d),
      set.spec?.lifecycle?.inPlaceUpdate,
      // a pod without a lifecycle state is not given one here (upstream's StatefulSet)
      (state) => state !== '',
    );
    if (step.outcome === 'held') return { inPlace: true };
    if (step.outcome === 'updated')
      return { inPlace: true, ...(step.delayMs ? { delayMs: step.delayMs } : {}) };
    if (policy === 'InPlaceOnly')
      throw new Error(`find strategy is InPlaceOnly but Pod ${pod.metadata?.name} can not update in-place`);
    return { inPlace: false };
  }
}
