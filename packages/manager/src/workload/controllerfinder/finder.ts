import type { Pod } from 'kubernetes-types/core/v1.js';
import { controllerOf } from '../owner-events.ts';
import { customSteps } from './custom-steps.ts';
import { podsForRefWith } from './pods-for-ref.ts';
import { isDeleting } from './resolved.ts';
import type { ControllerFinder, FinderSources, ScaleAndSelector, WorkloadRef } from './types.ts';
import { workloadSteps } from './workload-steps.ts';

/** A controller finder reading from `sources` (upstream's ControllerFinder, semantics of v1.9). */
export function newControllerFinder(sources: FinderSources): ControllerFinder {
  const typed = workloadSteps(sources);
  const steps = [...typed.steps, ...customSteps(sources)];

  async function scaleAndSelectorForRef(
    ref: WorkloadRef,
    namespace: string,
  ): Promise<ScaleAndSelector | undefined> {
    for (const step of steps) {
      const found = await step(ref, namespace);
      if (found) return found;
    }
    return undefined;
  }

  async function expectedScaleForPods(pods: Pod[]): Promise<number> {
    const seen = new Set<string>();
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref || seen.has(ref.uid)) continue;
      seen.add(ref.uid);
      const workload = await scaleAndSelectorForRef(ref, pod.metadata?.namespace ?? '');
      if (!workload || isDeleting(workload)) continue;
      scales.set(workload.uid, workload.scale);
    }
    let sum = 0;
    for (const scale of scales.values()) sum += scale;
    return sum;
  }

  return {
    scaleAndSelectorForRef,
    expectedScaleForPods,
    podsForRef: podsForRefWith(sources, scaleAndSelectorForRef, (ref, namespace) =>
      typed.find('ReplicaSet', ref, namespace),
    ),
  };
}
