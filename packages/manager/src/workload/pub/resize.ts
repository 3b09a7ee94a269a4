import { hasUnavailableLabel } from '@kruise/api';
import { jsonDeepEqual, quantitiesEqual } from '@kruise/kube-compat';
import type { Container, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { podQos, RESIZABLE_RESOURCES } from '../inplaceupdate/vertical.ts';

/** The pod spec with every container's resources left out. */
function specWithoutResources(spec: PodSpec | undefined): PodSpec {
  return { ...spec, containers: (spec?.containers ?? []).map(({ resources: _, ...c }) => c as Container) };
}

/** Whether a static pod (one kubelet runs from a file, mirrored to the API). */
const isStaticPod = (pod: Pod) => {
  const source = pod.metadata?.annotations?.['kubernetes.io/config.source'];
  return source !== undefined && source !== 'api';
};

/** Whether one resource of a container changes, in requests or limits. */
function resourceChanged(oldC: Container, newC: Container, name: string): boolean {
  for (const field of ['requests', 'limits'] as const) {
    const a = oldC.resources?.[field]?.[name];
    const b = newC.resources?.[field]?.[name];
    if ((a === undefined) !== (b === undefined)) return true;
    if (a !== undefined && !quantitiesEqual(String(a), String(b))) return true;
  }
  return false;
}

/** Whether every container resource change can be applied without a restart (upstream's canInplaceUpdateResources). */
function resourcesResizableInPlace(oldPod: Pod, newPod: Pod): boolean {
  const oldContainers = oldPod.spec?.containers ?? [];
  const newContainers = newPod.spec?.containers ?? [];
  if (oldContainers.length !== newContainers.length) return false;
  const byName = new Map(oldContainers.map((c) => [c.name, c]));
  for (const c of newContainers) {
    const old = byName.get(c.name);
    if (!old) return false;
    const names = new Set<string>();
    for (const r of [old.resources, c.resources])
      for (const field of ['requests', 'limits'] as const)
        for (const n of Object.keys(r?.[field] ?? {})) names.add(n);
    const policies = new Map((c.resizePolicy ?? []).map((p) => [p.resourceName, p.restartPolicy]));
    for (const name of names) {
      if (!resourceChanged(old, c, name)) continue;
      if (!RESIZABLE_RESOURCES.has(name)) return false;
      const policy = policies.get(name);
      if (policy && policy !== 'NotRequired') return false;
    }
  }
  return true;
}

/**
 * Whether a pod update only resizes cpu or memory in place (upstream's CanResizeInplace), which a
 * budget then sees as RESIZE instead of UPDATE: no `unavailable-pod.kruise.io/*` label appears,
 * nothing but resources changes, not a static pod, the QoS class stays, and no changed resource
 * asks for a container restart.
 */
export function canResizeInPlace(oldPod: Pod, newPod: Pod): boolean {
  if (!hasUnavailableLabel(oldPod.metadata?.labels) && hasUnavailableLabel(newPod.metadata?.labels))
    return false;
  if (!jsonDeepEqual(specWithoutResources(oldPod.spec), specWithoutResources(newPod.spec))) return false;
  if (isStaticPod(oldPod) || isStaticPod(newPod)) return false;
  if (podQos(oldPod.spec) !== podQos(newPod.spec)) return false;
  return resourcesResizableInPlace(oldPod, newPod);
}
