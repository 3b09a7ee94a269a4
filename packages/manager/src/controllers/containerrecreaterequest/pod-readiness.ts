import { KRUISE_POD_READY_CONDITION, kubeTime } from '@kruise/api';
import { type KubeClient, type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';

/** Who holds a pod not-ready: one entry of the `KruisePodReady` condition's JSON message. */
export interface NotReadyHolder {
  userAgent: string;
  key: string;
}

/** Whether a pod declares the `KruisePodReady` readiness gate. */
export const hasKruiseReadinessGate = (pod: KubeObject) =>
  (pod.spec?.readinessGates ?? []).some((g: any) => g?.conditionType === KRUISE_POD_READY_CONDITION);

/** The holders recorded in a pod's `KruisePodReady` condition. */
export function notReadyHolders(pod: KubeObject): NotReadyHolder[] {
  const c = (pod.status?.conditions ?? []).find((x: any) => x?.type === KRUISE_POD_READY_CONDITION);
  if (!c?.message) return [];
  try {
    const parsed = JSON.parse(c.message);
    return Array.isArray(parsed) ? parsed.filter((h) => h && typeof h.key === 'string') : [];
  } catch {
    return [];
  }
}

function setCondition(conditions: any[], next: any): any[] {
  const out = conditions.filter((c) => c?.type !== next.type);
  const prev = conditions.find((c) => c?.type === next.type);
  out.push({
    ...next,
    lastTransitionTime: prev?.status === next.status ? (prev.lastTransitionTime ?? kubeTime()) : kubeTime(),
  });
  return out;
}

/**
 * Adds (`hold`) or removes a holder in the pod's `KruisePodReady` condition, as upstream's
 * podreadiness helper does: with holders the condition is False (and the pod's Ready with it);
 * without holders it is True. Reads the pod live and writes its status with conflict retry.
 */
export async function changePodReadiness(
  client: KubeClient,
  namespace: string,
  name: string,
  holder: NotReadyHolder,
  hold: boolean,
): Promise<void> {
  await retryOnConflict(async () => {
    const pod = await client.get(Resources.Pod, namespace, name);
    const holders = notReadyHolders(pod).filter(
      (h) => h.key !== holder.key || h.userAgent !== holder.userAgent,
    );
    if (hold) holders.push(holder);
    const desired = holders.length ? 'False' : 'True';
    const existing = (pod.status?.conditions ?? []).find((c: any) => c?.type === KRUISE_POD_READY_CONDITION);
    if (JSON.stringify(notReadyHolders(pod)) === JSON.stringify(holders) && existing?.status === desired)
      return;
    let conditions: any[] = setCondition(pod.status?.conditions ?? [], {
      type: KRUISE_POD_READY_CONDITION,
      status: desired,
      ...(holders.length ? { message: JSON.stringify(holders) } : {}),
    });
    if (holders.length)
      conditions = setCondition(conditions, {
        type: 'Ready',
        status: 'False',
        reason: 'ReadinessGatesNotReady',
      });
    await client.updateStatus(Resources.Pod, { ...pod, status: { ...pod.status, conditions } });
  });
}
