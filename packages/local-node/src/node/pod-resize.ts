import type { CriClient } from '@kruise/cri/client';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { AllocationManager } from './allocation-manager.ts';
import type { BoundPod } from './bound-pod.ts';
import type { ContainerLifecycle, Step } from './container-lifecycle.ts';
import {
  changedResources,
  computeResourcesOf,
  deferredResize,
  infeasibleResize,
  linuxResources,
} from './container-resources.ts';
import type { Sandbox } from './pod-sandbox.ts';
import type { RuntimeContainer } from './pod-status.ts';

/** What the in-place resize works with. */
export interface PodResizeDeps {
  cri: CriClient;
  /** The node's allocatable resources (a resize beyond them is Infeasible). */
  allocatable: Record<string, string>;
  /** The machine's memory (Burstable pods' oom_score_adj is scaled by it). */
  memoryCapacityBytes: number;
  /** How soon a Deferred or failed resize is tried again (default 5 s). */
  retryMs?: number;
  allocations: AllocationManager;
  /** Restarts a container whose resizePolicy says RestartContainer. */
  lifecycle: ContainerLifecycle;
}

/**
 * kubelet 1.33's in-place resize of a running container whose cpu/memory spec differs from what
 * was allocated to it. A new request is admitted first: Infeasible (PodResizePending) when the
 * pod's requests exceed the node's allocatable, Deferred when they do not fit beside the other
 * pods' allocated requests (tried again every retry period), else allocated — the status then
 * says PodResizeInProgress until the next pass actuates it, with UpdateContainerResources or, when
 * the container's resizePolicy says RestartContainer for a changed resource, by a restart. A
 * failed update keeps PodResizeInProgress with reason Error and is tried again.
 */
export async function resizeContainer(
  d: PodResizeDeps,
  pod: BoundPod,
  container: Container,
  latest: RuntimeContainer,
  sandbox: Sandbox,
): Promise<Step> {
  const m = d.allocations.of(pod.metadata.uid);
  const desired = computeResourcesOf(container);
  const known = m.resources.get(container.name);
  const applied = known?.applied ?? latest.resources ?? desired;
  const allocated = known?.allocated ?? applied;
  if (changedResources(allocated, desired).length) {
    const infeasible = infeasibleResize(pod, d.allocatable);
    const deferred = infeasible
      ? undefined
      : deferredResize(pod, d.allocations.othersAllocated(pod.metadata.uid), d.allocatable);
    m.resources.set(container.name, { allocated, applied });
    if (infeasible) m.resizePending = { reason: 'Infeasible', message: infeasible };
    if (deferred) m.resizePending = { reason: 'Deferred', message: deferred };
    if (infeasible || deferred) return { waitMs: deferred ? (d.retryMs ?? 5000) : 0, acted: false };
    m.resizePending = undefined;
    m.resizeError = undefined;
    m.resources.set(container.name, { allocated: desired, applied });
    return { waitMs: 1, acted: false };
  }
  m.resizePending = undefined;
  const changed = changedResources(applied, allocated);
  if (!changed.length) {
    if (!known) m.resources.set(container.name, { allocated, applied });
    return { waitMs: 0, acted: false };
  }
  const restart = changed.some(
    (r) => container.resizePolicy?.find((p) => p.resourceName === r)?.restartPolicy === 'RestartContainer',
  );
  if (restart)
    return await d.lifecycle.replace(
      pod,
      container,
      latest,
      sandbox,
      pod.spec.terminationGracePeriodSeconds ?? 30,
      {
        reason: 'Killing',
        message: `Container ${container.name} resize requires restart`,
      },
    );
  try {
    await d.cri.updateContainerResources(latest.id, linuxResources(pod, allocated, d.memoryCapacityBytes));
  } catch (err) {
    m.resizeError = { reason: 'Error', message: (err as Error).message };
    return { waitMs: d.retryMs ?? 5000, acted: false };
  }
  m.resizeError = undefined;
  m.resources.set(container.name, { allocated, applied: allocated });
  return { waitMs: 0, acted: true };
}
