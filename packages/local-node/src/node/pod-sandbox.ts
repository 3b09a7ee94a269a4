import type { CriClient } from '@kruise/cri/client';
import type { BoundPod } from './bound-pod.ts';
import { KubeletKeys, sandboxConfig } from './kubelet-metadata.ts';
import type { PodLogs } from './pod-logs.ts';

/** A pod's sandbox: its ID and the pod's IP. */
export interface Sandbox {
  id: string;
  podIP: string;
}

/** A pod outside the host network cannot start while the runtime's network is not ready. */
export class NetworkNotReadyError extends Error {
  constructor(why: string) {
    super(`network is not ready: ${why}`);
  }
}

/** What the pod sandboxes work with. */
export interface PodSandboxesDeps {
  cri: CriClient;
  node: string;
  hostIP: string;
  /** The pod's log directory goes into its sandbox config. */
  logs: PodLogs;
  /** Why the runtime's network is not ready (kubelet's words), or undefined when it is. */
  networkNotReady?: () => string | undefined;
}

/**
 * kubelet's kuberuntime_sandbox: one sandbox per pod, started when missing, its IP read once
 * (it never changes while the sandbox lives), and every sandbox of a pod removed when it goes.
 */
export class PodSandboxes {
  private readonly d: PodSandboxesDeps;
  /** Per pod UID: its sandbox and the pod's IP, which never change while the sandbox lives (read once). */
  private readonly sandboxes = new Map<string, Sandbox>();

  constructor(deps: PodSandboxesDeps) {
    this.d = deps;
  }

  /** The pod's sandbox as last read, without asking the runtime (undefined before the first). */
  known(uid: string): Sandbox | undefined {
    return this.sandboxes.get(uid);
  }

  /**
   * The ready sandbox of a pod, started when missing, and the pod's IP: the host's in the host
   * network, else the one the runtime's CNI gave the sandbox (kubelet reads it from
   * PodSandboxStatus). A pod outside the host network waits while the runtime's network is not
   * ready, as kubelet's pod workers do (NetworkNotReadyError).
   */
  async ensure(pod: BoundPod): Promise<Sandbox> {
    const { items } = await this.d.cri.listPodSandbox({
      labelSelector: { [KubeletKeys.podUid]: pod.metadata.uid },
      state: { state: 'SANDBOX_READY' },
    });
    let id = items[0]?.id;
    const known = this.sandboxes.get(pod.metadata.uid);
    if (id && known?.id === id) return known;
    if (!id) {
      const notReady = pod.spec.hostNetwork ? undefined : this.d.networkNotReady?.();
      if (notReady) throw new NetworkNotReadyError(notReady);
      // The directory itself is made with the first container's log (the sandbox writes none).
      id = await this.d.cri.runPodSandbox(sandboxConfig(pod, this.d.node, this.d.logs.podDirectory(pod)));
    }
    const podIP = pod.spec.hostNetwork
      ? this.d.hostIP
      : ((await this.d.cri.podSandboxStatus(id)).status?.network?.ip ?? '');
    const sandbox = { id, podIP };
    this.sandboxes.set(pod.metadata.uid, sandbox);
    return sandbox;
  }

  /** Stops and removes every sandbox (and so every container) of a pod UID, and forgets it. */
  async remove(uid: string): Promise<void> {
    const { items } = await this.d.cri.listPodSandbox({ labelSelector: { [KubeletKeys.podUid]: uid } });
    for (const s of items) {
      await this.d.cri.stopPodSandbox(s.id).catch(() => undefined);
      await this.d.cri.removePodSandbox(s.id).catch(() => undefined);
    }
    this.sandboxes.delete(uid);
  }
}
