import type { LifecycleHook } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NotReadyKey } from '../podreadiness/not-ready-keys.ts';
import {
  LIFECYCLE_STATE_LABEL,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  type LifecycleState,
  lifecycleState,
} from './state.ts';

/** Holder keys of lifecycle hooks in the KruisePodReady condition. */
export const PRE_DELETE_HOOK_KEY: NotReadyKey = { userAgent: 'Lifecycle', key: 'preDeleteHook' };
export const PRE_UPDATE_HOOK_KEY: NotReadyKey = { userAgent: 'Lifecycle', key: 'preUpdateHook' };

/** What lifecycle changes need: a merge patch of a pod, and the shared not-ready keys. */
export interface LifecycleDeps {
  /** Merge-patches the pod (metadata only) and returns it as stored. */
  patchPod(pod: Pod, patch: { metadata: Record<string, unknown> }): Promise<Pod>;
  addNotReadyKey(pod: Pod, key: NotReadyKey): Promise<void>;
  removeNotReadyKey(pod: Pod, key: NotReadyKey): Promise<void>;
}

/**
 * Lifecycle state changes of workload pods (upstream's lifecycle.Interface): the state label and
 * its RFC 3339 timestamp, with markPodNotReady holding the pod not-ready in PreparingDelete and
 * PreparingUpdate and releasing it at Updated.
 */
export class LifecycleControl {
  private readonly deps: LifecycleDeps;
  private readonly now: () => number;

  constructor(deps: LifecycleDeps, now: () => number = Date.now) {
    this.deps = deps;
    this.now = now;
  }

  private async notReadyPolicy(pod: Pod, state: LifecycleState): Promise<void> {
    if (state === 'PreparingDelete') await this.deps.addNotReadyKey(pod, PRE_DELETE_HOOK_KEY);
    else if (state === 'PreparingUpdate') await this.deps.addNotReadyKey(pod, PRE_UPDATE_HOOK_KEY);
    else if (state === 'Updated') await this.deps.removeNotReadyKey(pod, PRE_UPDATE_HOOK_KEY);
  }

  private stamp(state: LifecycleState) {
    return {
      labels: { [LIFECYCLE_STATE_LABEL]: state },
      annotations: { [LIFECYCLE_TIMESTAMP_ANNOTATION]: kubeTime(this.now()) },
    };
  }

  /** Moves the pod to `state`; returns the stored pod when it changed, undefined when it was there. */
  async updatePodLifecycle(
    pod: Pod,
    state: LifecycleState,
    markPodNotReady: boolean,
  ): Promise<Pod | undefined> {
    if (markPodNotReady) await this.notReadyPolicy(pod, state);
    if (lifecycleState(pod) === state) return undefined;
    return this.deps.patchPod(pod, { metadata: this.stamp(state) });
  }

  /**
   * Moves the pod to `state` while putting the hook's labels and finalizers back (an Updated pod
   * selected for another update re-enters PreparingUpdate this way).
   */
  async updatePodLifecycleWithHandler(
    pod: Pod,
    state: LifecycleState,
    hook: LifecycleHook | undefined,
  ): Promise<Pod | undefined> {
    if (!hook) return undefined;
    if (hook.markPodNotReady) await this.notReadyPolicy(pod, state);
    if (lifecycleState(pod) === state) return undefined;
    const stamp = this.stamp(state);
    const finalizers = [...(pod.metadata?.finalizers ?? [])];
    for (const f of hook.finalizersHandler ?? []) if (!finalizers.includes(f)) finalizers.push(f);
    return this.deps.patchPod(pod, {
      metadata: {
        labels: { ...(hook.labelsHandler ?? {}), ...stamp.labels },
        annotations: stamp.annotations,
        finalizers,
        resourceVersion: pod.metadata?.resourceVersion,
      },
    });
  }
}
