import { isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { InPlaceUpdateControl } from './inplaceupdate/control.ts';
import { LifecycleControl } from './lifecycle/control.ts';
import { PodReadinessControl } from './podreadiness/control.ts';

/** The shared pod controls a workload drives: lifecycle state, in-place updates and readiness. */
export interface PodControls {
  lifecycle: LifecycleControl;
  inPlace: InPlaceUpdateControl;
  readiness: PodReadinessControl;
}

/** The pod controls over the API (fresh reads, merge patches, status writes). */
export function podControls(client: KubeClient, now: () => number): PodControls {
  const readiness = new PodReadinessControl(client);
  const lifecycle = new LifecycleControl(
    {
      patchPod: async (pod, patch) =>
        (await client.mergePatch(
          Resources.Pod,
          pod.metadata?.namespace,
          pod.metadata?.name ?? '',
          patch,
        )) as unknown as Pod,
      addNotReadyKey: (pod, key) => readiness.addNotReadyKey(pod, key),
      removeNotReadyKey: (pod, key) => readiness.removeNotReadyKey(pod, key),
    },
    now,
  );
  const inPlace = new InPlaceUpdateControl(
    {
      get: async (ns, name) => (await client.get(Resources.Pod, ns, name)) as unknown as Pod,
      update: async (pod) =>
        (await client.update(Resources.Pod, pod as unknown as KubeObject)) as unknown as Pod,
      updateStatus: async (pod) =>
        (await client.updateStatus(Resources.Pod, pod as unknown as KubeObject)) as unknown as Pod,
      // a strategic merge patch of the containers' resources, as upstream's GenerateResourcePatch
      resize: async (pod, resources) =>
        (await client.request(
          'PATCH',
          `/api/v1/namespaces/${pod.metadata?.namespace}/pods/${pod.metadata?.name}/resize`,
          {
            body: {
              spec: { containers: Object.entries(resources).map(([name, r]) => ({ name, resources: r })) },
            },
            contentType: 'application/strategic-merge-patch+json',
          },
        )) as Pod,
    },
    now,
  );
  return { lifecycle, inPlace, readiness };
}

/** Merge-patches a pod's labels; returns the stored pod. */
export async function patchPodLabels(
  client: KubeClient,
  pod: Pod,
  labels: Record<string, string | null>,
): Promise<Pod> {
  return (await client.mergePatch(Resources.Pod, pod.metadata?.namespace, pod.metadata?.name ?? '', {
    metadata: { labels },
  })) as unknown as Pod;
}

/** Deletes an object, a 404 counting as done. */
export async function deleteIgnoringNotFound(
  client: KubeClient,
  resource: (typeof Resources)[keyof typeof Resources],
  namespace: string | undefined,
  name: string,
): Promise<void> {
  try {
    await client.delete(resource, namespace, name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
