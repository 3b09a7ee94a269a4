import type { ContainerStatus, PodSpec } from 'kubernetes-types/core/v1.js';
import { isRestartableInit } from './termination-ordering.ts';

const statusOf = (statuses: ContainerStatus[], name: string) => statuses.find((s) => s.name === name);

/**
 * kubelet 1.33's getPhase: regular init containers still to complete (or running) keep the pod
 * Pending, a failed one under restartPolicy Never fails it; a native sidecar (an init container
 * with restartPolicy Always) keeps it Pending until it has started, then counts as running, and
 * once terminated is ignored — so a job pod's phase is decided by its app containers once the
 * sidecars are stopped. `terminal`: the pod will not run again (its containers are being stopped
 * for good), so all stopped means Succeeded or Failed whatever the policy.
 */
export function podPhase(
  spec: Partial<PodSpec>,
  initStatuses: ContainerStatus[],
  statuses: ContainerStatus[],
  terminal = false,
): string {
  let pendingInit = 0;
  let pendingSidecars = 0;
  let failedInit = 0;
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec.initContainers ?? []) {
    const s = statusOf(initStatuses, c.name);
    if (isRestartableInit(c)) {
      if (!s) unknown++;
      else if (s.state?.running) {
        if (!s.started) pendingSidecars++;
        running++;
      } else if (s.state?.terminated) {
        // a terminated sidecar is ignored
      } else if (s.state?.waiting) {
        if (!s.lastState?.terminated) {
          pendingSidecars++;
          waiting++;
        }
      } else {
        pendingSidecars++;
        unknown++;
      }
      continue;
    }
    const last = s?.lastState?.terminated;
    if (!s || s.state?.running) pendingInit++;
    else if (s.state?.terminated) {
      if (s.state.terminated.exitCode !== 0) failedInit++;
    } else if (s.state?.waiting && last) {
      if (last.exitCode !== 0) failedInit++;
    } else pendingInit++;
  }
  for (const c of spec.containers ?? []) {
    const s = statusOf(statuses, c.name);
    if (!s) unknown++;
    else if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }
  const policy = spec.restartPolicy ?? 'Always';
  if (failedInit > 0 && policy === 'Never') return 'Failed';
  // A pod whose sidecar is not started yet but whose app containers all stopped has been
  // initialized before (kubelet: the node rebooted); it is not Pending for that.
  if (pendingInit > 0 || (pendingSidecars > 0 && !(running === 0 && stopped > 0)) || waiting > 0)
    return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (terminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}
