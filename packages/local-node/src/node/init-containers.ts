import type { Container } from 'kubernetes-types/core/v1.js';
import { type RuntimeContainer, shouldRestart } from './pod-status.ts';
import { isRestartableInit } from './termination-ordering.ts';

/** What kubelet does with a pod's init containers in one sync. */
export interface InitPlan {
  /** Indices of the init containers to move toward running (start, restart, replace), in spec order. */
  step: number[];
  /** Whether the pod has initialized: its app containers may run. */
  initialized: boolean;
}

/**
 * kubelet 1.33's computeInitContainerActions, in spec order: a regular init container must exit 0
 * before the next one starts; a native sidecar (restartPolicy Always) must be running and started
 * (its startup probe succeeded, when it has one) — then the next one starts, and it is kept
 * running from then on: restarted when it exits, replaced when its spec changed or a probe failed.
 * Once an app container has been created, or a later init container has, the earlier ones count
 * as done: regular ones are not run again, sidecars only kept running.
 * `latest`: each container's newest instance; `started`: whether a running one has started.
 */
export function planInitContainers(
  initContainers: Container[],
  latest: (name: string) => RuntimeContainer | undefined,
  appCreated: boolean,
  started: (spec: Container, c: RuntimeContainer) => boolean,
): InitPlan {
  const last = initContainers.findLastIndex((c) => latest(c.name) !== undefined);
  const step: number[] = [];
  for (const [i, ic] of initContainers.entries()) {
    const c = latest(ic.name);
    const previously = appCreated || i < last;
    if (!isRestartableInit(ic)) {
      if (previously || (c?.state === 'CONTAINER_EXITED' && c.exitCode === 0)) continue;
      // a running one is only waited for (a changed image does not restart it)
      if (c?.state !== 'CONTAINER_RUNNING') step.push(i);
      return { step, initialized: false };
    }
    step.push(i);
    if (c?.state === 'CONTAINER_RUNNING' && started(ic, c)) continue;
    if (!previously) return { step, initialized: false };
  }
  return { step, initialized: true };
}

/**
 * Whether the app containers of a restartPolicy Never/OnFailure pod have all terminated for good
 * (none will be restarted): kubelet then stops the native sidecars and the pod completes.
 */
export function appContainersDone(
  containers: Container[],
  latest: (name: string) => RuntimeContainer | undefined,
  policy: string,
): boolean {
  if (policy === 'Always' || !containers.length) return false;
  return containers.every((spec) => {
    const c = latest(spec.name);
    return c?.state === 'CONTAINER_EXITED' && !shouldRestart(policy, c.exitCode);
  });
}
