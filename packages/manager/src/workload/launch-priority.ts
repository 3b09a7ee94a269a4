import type { Container, EnvVar } from 'kubernetes-types/core/v1.js';

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

/** The env var that makes a container wait for its priority in ConfigMap `<pod>-barrier`. */
export function barrierEnv(priority: number, podName: string): EnvVar {
  return {
    name: CONTAINER_LAUNCH_BARRIER_ENV,
    valueFrom: { configMapKeyRef: { name: `${podName}-barrier`, key: barrierKey(priority) } },
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
