import type { LifecycleHook } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import type { ResourceVersionExpectations } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  isPodHooked,
  LIFECYCLE_STATE_LABEL,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  lifecycleState,
} from '../lifecycle/state.ts';
import type { PodControls } from '../pod-controls.ts';
import type { InPlaceUpdateOptions } from './control.ts';

/** What a workload's step toward an in-place update did. */
export type InPlaceStep =
  /** The pod is held by its inPlaceUpdate hook (moved to, or still in, PreparingUpdate). */
  | { outcome: 'held' }
  /** The update was started (`delayMs`: the grace period to wait before looking again). */
  | { outcome: 'updated'; delayMs?: number }
  /** The change cannot be made in place: the caller recreates the pod (or refuses, for InPlaceOnly). */
  | { outcome: 'impossible' };

/** What the step needs of its workload controller. */
export interface InPlaceStepDeps {
  controls: PodControls;
  resourceVersionExpectations: Pick<ResourceVersionExpectations, 'expect'>;
  /** Records an event on the workload. */
  event(type: 'Normal' | 'Warning', reason: string, message: string): void;
  now(): number;
}

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * One pod's in-place update through the workload's lifecycle (upstream's updatePod of CloneSet and
 * inPlaceUpdatePod of Advanced StatefulSet): a pod the inPlaceUpdate hook selects goes to
 * PreparingUpdate first and waits there while hooked (an Updated pod goes back to PreparingUpdate
 * through the hook's handler); then the update starts, with the state `Updating` stamped on the pod
 * unless `stampUpdating` says otherwise for its state, and the events upstream records.
 */
export async function updateInPlaceThroughLifecycle(
  d: InPlaceStepDeps,
  pod: Pod,
  old: ControllerRevision | undefined,
  target: ControllerRevision,
  opts: InPlaceUpdateOptions,
  hook: LifecycleHook | undefined,
  stampUpdating: (state: string) => boolean = () => true,
): Promise<InPlaceStep> {
  if (!d.controls.inPlace.canUpdateInPlace(old, target, opts)) return { outcome: 'impossible' };
  const podName = pod.metadata?.name ?? '';
  const state = lifecycleState(pod);
  switch (state) {
    case '':
    case 'PreparingNormal':
    case 'Normal':
      if (isPodHooked(hook, pod)) {
        const got = await d.controls.lifecycle.updatePodLifecycle(
          pod,
          'PreparingUpdate',
          hook?.markPodNotReady === true,
        );
        if (got) d.resourceVersionExpectations.expect(got);
        return { outcome: 'held' };
      }
      break;
    case 'Updated': {
      const got = await d.controls.lifecycle.updatePodLifecycleWithHandler(pod, 'PreparingUpdate', hook);
      if (got) d.resourceVersionExpectations.expect(got);
      return { outcome: 'held' };
    }
    case 'PreparingUpdate':
      if (isPodHooked(hook, pod)) return { outcome: 'held' };
      break;
    case 'Updating':
      break;
    default:
      throw new Error(`not allowed to in-place update pod ${podName} in state ${state}`);
  }
  const stamp = kubeTime(d.now());
  const additional = [
    ...(opts.additional ?? []),
    ...(stampUpdating(state)
      ? [
          (p: Pod) => {
            p.metadata!.labels![LIFECYCLE_STATE_LABEL] = 'Updating';
            p.metadata!.annotations![LIFECYCLE_TIMESTAMP_ANNOTATION] = stamp;
          },
        ]
      : []),
  ];
  const targetName = target.metadata?.name ?? '';
  try {
    const res = await d.controls.inPlace.update(pod, old, target, { ...opts, additional });
    if (!res.inPlace) return { outcome: 'impossible' };
    if (res.newResourceVersion)
      d.resourceVersionExpectations.expect({
        metadata: { ...pod.metadata, resourceVersion: res.newResourceVersion },
      });
    d.event(
      'Normal',
      'SuccessfulUpdatePodInPlace',
      `successfully update pod ${podName} in-place(revision ${targetName})`,
    );
    return { outcome: 'updated', ...(res.delayMs ? { delayMs: res.delayMs } : {}) };
  } catch (err) {
    d.event(
      'Warning',
      'FailedUpdatePodInPlace',
      `failed to update pod ${podName} in-place(revision ${targetName}): ${errText(err)}`,
    );
    throw err;
  }
}
