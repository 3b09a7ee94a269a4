import type { KubeObject } from '../types.ts';
import { quantityValue } from './quantity.ts';

/** A pod's QoS class. */
export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = new Set(['cpu', 'memory']);

/** The QoS class computed from a pod's container resources (kube-apiserver's ComputePodQOS). */
export function computePodQOS(pod: KubeObject): PodQOSClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const add = (into: Map<string, number>, name: string, v: number) =>
    into.set(name, (into.get(name) ?? 0) + v);
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const resources = c?.resources ?? {};
    for (const [name, q] of Object.entries(resources.requests ?? {})) {
      const v = quantityValue(q);
      if (QOS_RESOURCES.has(name) && v !== undefined && v > 0) add(requests, name, v);
    }
    const found = new Set<string>();
    for (const [name, q] of Object.entries(resources.limits ?? {})) {
      const v = quantityValue(q);
      if (QOS_RESOURCES.has(name) && v !== undefined && v > 0) {
        found.add(name);
        add(limits, name, v);
      }
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** The QoS class a stored pod has: `status.qosClass` when set, else computed (GetPodQOS). */
export function podQOS(pod: KubeObject): PodQOSClass {
  return pod.status?.qosClass || computePodQOS(pod);
}
