import type { Container, EnvVar, Pod } from 'kubernetes-types/core/v1.js';

/** Env var users set for a container's launch priority (higher starts first). */
export const CONTAINER_LAUNCH_PRIORITY_ENV = 'KRUISE_CONTAINER_PRIORITY';
/** Env var the pod webhook injects: a ConfigMap key the kubelet waits for. */
export const CONTAINER_LAUNCH_BARRIER_ENV = 'KRUISE_CONTAINER_BARRIER';
/** Pod annotation `Ordered`: containers start in list order. */
export const CONTAINER_LAUNCH_PRIORITY_ANNOTATION = 'apps.kruise.io/container-launch-priority';
/** Pod annotation set once every priority is released. */
export const CONTAINER_LAUNCH_PRIORITY_COMPLETED_ANNOTATION =
  'apps.kruise.io/container-launch-priority-completed';

/** The barrier ConfigMap key of a priority: `p_<priority>`. */
export const barrierKey = (priority: number) => `p_${priority}`;

/** The barrier ConfigMap of a pod: `<pod>-barrier` (the controller creates it, owned by the pod). */
export const barrierName = (podName: string) => `${podName}-barrier`;

/** The env var that makes a container wait for its priority in ConfigMap `<pod>-barrier`. */
export function barrierEnv(priority: number, podName: string): EnvVar {
  return {
    name: CONTAINER_LAUNCH_BARRIER_ENV,
    valueFrom: { configMapKeyRef: { name: barrierName(podName), key: barrierKey(priority) } },
  };
}

/**
 * A container's launch priority, read from its injected barrier env (`p_<n>` → n), or undefined
 * when it has none. An unparsable key counts as 0, as upstream (which never panics on short keys
 * here: issue #1413).
 */
export function containerPriority(container: Pick<Container, 'env'>): number | undefined {
  const env = container.env?.find((e) => e.name === CONTAINER_LAUNCH_BARRIER_ENV);
  if (!env) return undefined;
  const text = (env.valueFrom?.configMapKeyRef?.key ?? '').slice(2);
  return /^[+-]?\d+$/.test(text) ? Number(text) : 0;
}

/**
 * The launch priorities still to be released (upstream's findNextPriorities): those of the
 * containers that carry a barrier and are not Ready yet, ascending (duplicates kept). The last one
 * is the next to release; once the first one is released, every container may start.
 */
export function pendingPriorities(pod: Pick<Pod, 'spec' | 'status'>): number[] {
  const ready = new Set((pod.status?.containerStatuses ?? []).filter((s) => s.ready).map((s) => s.name));
  const priorities: number[] = [];
  for (const c of pod.spec?.containers ?? []) {
    if (ready.has(c.name)) continue;
    const p = containerPriority(c);
    if (p !== undefined) priorities.push(p);
  }
  return priorities.sort((a, b) => a - b);
}
