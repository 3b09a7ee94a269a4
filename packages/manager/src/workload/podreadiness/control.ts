import { type KubeClient, type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { holdsNotReady, type NotReadyKey, withNotReadyKey, withoutNotReadyKey } from './not-ready-keys.ts';

/**
 * Holds pods not-ready through their `KruisePodReady` condition, on behalf of several writers at
 * once (lifecycle hooks, ContainerRecreateRequests …): each adds or removes its own key; the
 * condition is True only when no key is left. Reads the pod live and writes `pods/status` with
 * conflict retry.
 */
export class PodReadinessControl {
  private readonly client: KubeClient;

  constructor(client: KubeClient) {
    this.client = client;
  }

  /** Adds `holder` (no-op without the readiness gate or when already held). */
  async addNotReadyKey(pod: Pod, holder: NotReadyKey): Promise<void> {
    if (holdsNotReady(pod, holder)) return;
    await this.change(pod, (p) => withNotReadyKey(p, holder));
  }

  /** Removes `holder` (no-op when it is not there). */
  async removeNotReadyKey(pod: Pod, holder: NotReadyKey): Promise<void> {
    await this.change(pod, (p) => withoutNotReadyKey(p, holder));
  }

  private async change(pod: Pod, edit: (pod: Pod) => Pod | undefined): Promise<void> {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    await retryOnConflict(async () => {
      const fresh = (await this.client.get(Resources.Pod, ns, name)) as Pod;
      const next = edit(fresh);
      if (next) await this.client.updateStatus(Resources.Pod, next as KubeObject);
    });
  }
}
