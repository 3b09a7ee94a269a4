import type { ComputeResources } from './container-resources.ts';

/** A container's cpu/memory: allocated to it, and applied to its cgroups. */
export interface ContainerAllocation {
  allocated: ComputeResources;
  applied: ComputeResources;
}

/** Why a resize waits or failed: a PodResizePending or PodResizeInProgress condition's reason and message. */
export interface ResizeCondition {
  reason: string;
  message: string;
}

/** What is allocated to one pod's containers, and where its resize stands. */
export interface PodAllocation {
  /** Per container: the cpu/memory allocated to it and applied to its cgroups. */
  resources: Map<string, ContainerAllocation>;
  /** Why the last resize could not be allocated. */
  resizePending?: ResizeCondition;
  /** Why actuating the allocated resize failed (PodResizeInProgress reason Error). */
  resizeError?: ResizeCondition;
}

/**
 * kubelet's allocation manager: per pod UID, the cpu/memory allocated to each container (what a
 * new resize is admitted against) and the resize's pending or failed state.
 */
export class AllocationManager {
  private readonly pods = new Map<string, PodAllocation>();

  /** The pod's allocation, empty until a container is started or resized. */
  of(uid: string): PodAllocation {
    let a = this.pods.get(uid);
    if (!a) {
      a = { resources: new Map() };
      this.pods.set(uid, a);
    }
    return a;
  }

  /** The cpu/memory requests allocated to the node's other pods' containers. */
  othersAllocated(uid: string): ComputeResources[] {
    return [...this.pods]
      .filter(([other]) => other !== uid)
      .flatMap(([, a]) => [...a.resources.values()].map((r) => r.allocated));
  }

  /** Forgets a pod that is gone. */
  forget(uid: string): void {
    this.pods.delete(uid);
  }
}
