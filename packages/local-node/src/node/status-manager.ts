import type { KubeClient } from '@kruise/runtime';
import type { BoundPod } from './bound-pod.ts';
import type { KubeletPodStatus } from './pod-status.ts';

/** The pod conditions kubelet owns; the others (readiness gates) belong to their controllers. */
const KUBELET_CONDITIONS = new Set([
  'Initialized',
  'Ready',
  'ContainersReady',
  'PodScheduled',
  'PodResizePending',
  'PodResizeInProgress',
]);

/**
 * kubelet's status manager: patches the pod's status when what kubelet computed differs from
 * what the pod has (conditions compared on kubelet's own only); conditions kubelet set before
 * and no longer wants go, as kubelet's status patch removes them.
 */
export async function writePodStatus(
  client: KubeClient,
  pod: BoundPod,
  status: KubeletPodStatus,
): Promise<void> {
  const own = (s: { conditions?: { type: string }[] } | undefined) =>
    (s?.conditions ?? [])
      .filter((c) => KUBELET_CONDITIONS.has(c.type))
      .sort((a, b) => a.type.localeCompare(b.type));
  const view = (s: Record<string, unknown> | undefined) =>
    JSON.stringify(
      Object.keys(status).map((k) =>
        k === 'conditions' ? own(s as { conditions?: { type: string }[] }) : (s?.[k] ?? null),
      ),
    );
  if (view(pod.status as Record<string, unknown> | undefined) === view(status)) return;
  const gone = (pod.status?.conditions ?? []).filter(
    (c) => KUBELET_CONDITIONS.has(c.type) && !status.conditions.some((n) => n.type === c.type),
  );
  const body = gone.length
    ? {
        status: {
          ...status,
          conditions: [...status.conditions, ...gone.map((c) => ({ type: c.type, $patch: 'delete' }))],
        },
      }
    : { status };
  await client.request(
    'PATCH',
    `/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace)}/pods/${encodeURIComponent(pod.metadata.name)}/status`,
    { body, contentType: 'application/strategic-merge-patch+json' },
  );
}
