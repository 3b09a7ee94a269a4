/** The labels and annotations kubelet puts on the CRI sandboxes and containers it creates (read back by kruise-daemon). */
export const CRI_POD_UID_LABEL = 'io.kubernetes.pod.uid';
export const CRI_POD_NAME_LABEL = 'io.kubernetes.pod.name';
export const CRI_POD_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';
export const CRI_CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';
export const CRI_CONTAINER_RESTART_COUNT_ANNOTATION = 'io.kubernetes.container.restartCount';
export const CRI_CONTAINER_HASH_ANNOTATION = 'io.kubernetes.container.hash';
export const CRI_TERMINATION_MESSAGE_PATH_ANNOTATION = 'io.kubernetes.container.terminationMessagePath';
export const CRI_PRESTOP_HANDLER_ANNOTATION = 'io.kubernetes.container.preStopHandler';
export const CRI_POD_TERMINATION_GRACE_PERIOD_ANNOTATION = 'io.kubernetes.pod.terminationGracePeriod';

/** A CRI container or container status as far as kubelet's metadata goes. */
export interface KubeletLabelled {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  metadata?: { name?: string; attempt?: number } | null;
}

/** The pod-spec container name and restart count kubelet recorded on a CRI container. */
export function kubeletContainerIdentity(c: KubeletLabelled): { name: string; attempt: number } {
  return {
    name: c.labels?.[CRI_CONTAINER_NAME_LABEL] ?? c.metadata?.name ?? '',
    attempt: Number(c.annotations?.[CRI_CONTAINER_RESTART_COUNT_ANNOTATION] ?? c.metadata?.attempt ?? 0),
  };
}
