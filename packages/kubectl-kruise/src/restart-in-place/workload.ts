import type { LabelSelector } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { cloneSetMaxUnavailable, statefulSetMaxUnavailable } from './budget.ts';

/**
 * What an in-place restart reads of a workload of one kind (where it is served and how it is
 * named come from the command's kind table, kinds.ts).
 */
export interface RestartableKind {
  replicas(obj: KubeObject): number;
  /** The resolved maxUnavailable (a count). */
  maxUnavailable(obj: KubeObject): number;
  minReadySeconds(obj: KubeObject): number;
  selector(obj: KubeObject): LabelSelector | undefined;
}

const specReplicas = (obj: KubeObject): number => obj.spec?.replicas ?? 1;
const specSelector = (obj: KubeObject): LabelSelector | undefined => obj.spec?.selector;

/** The kinds `rollout restart --in-place` handles (Advanced DaemonSet joins as it lands). */
export const RESTARTABLE_KINDS: Record<string, RestartableKind> = {
  CloneSet: {
    replicas: specReplicas,
    maxUnavailable: (obj) => cloneSetMaxUnavailable(obj.spec ?? {}),
    minReadySeconds: (obj) => obj.spec?.minReadySeconds ?? 0,
    selector: specSelector,
  },
  StatefulSet: {
    replicas: specReplicas,
    maxUnavailable: (obj) => statefulSetMaxUnavailable(obj.spec ?? {}),
    minReadySeconds: (obj) => obj.spec?.updateStrategy?.rollingUpdate?.minReadySeconds ?? 0,
    selector: specSelector,
  },
};

/** The workload's live pods: selected by its selector, controlled by it, not deleting, not finished. */
export function ownedActivePods(workload: KubeObject, pods: KubeObject[]): KubeObject[] {
  const uid = workload.metadata?.uid;
  return pods.filter(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      (p.metadata?.ownerReferences ?? []).some((r: any) => r?.controller && r.uid === uid),
  );
}

/**
 * Whether a pod counts as available: Ready, for at least `minReadySeconds` by the Ready
 * condition's last transition.
 */
export function podAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  const ready = (pod.status?.conditions ?? []).find((c: any) => c?.type === 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isFinite(since) && now - since >= minReadySeconds * 1000;
}
