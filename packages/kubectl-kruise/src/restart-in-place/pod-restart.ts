import type { ContainerRecreateRequest } from '@kruise/api';
import { KruiseResources } from '@kruise/api/kinds';
import { kubeTime } from '@kruise/kube-compat/time';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { isAlreadyExists } from '@kruise/runtime/kube/errors';
import { Resources } from '@kruise/runtime/kube/resources';
import { type CrrOptions, containerRecreateRequest } from '../crr/defaults.ts';
import {
  crrName,
  POD_RESTARTED_ANNOTATION,
  type PodRestartRecord,
  RESTART_ID_LABEL,
  type RestartRecord,
} from './records.ts';

/** The request settings a restart passes on to every request it makes. */
export type CrrTiming = Pick<
  CrrOptions,
  'unreadyGracePeriodSeconds' | 'minStartedSeconds' | 'activeDeadlineSeconds'
>;

/** The client calls one pod's restart makes. */
export type PodRestartClient = Pick<KubeClient, 'create' | 'mergePatch'>;

/**
 * Starts one pod's restart: a ContainerRecreateRequest for every container of the pod, labelled
 * with the restart id and named after the pod and the id, so a re-run finds it instead of making
 * a second one. Returns the request (the existing one when a previous run made it).
 */
export async function startPodRestart(
  client: PodRestartClient & Pick<KubeClient, 'get'>,
  pod: KubeObject,
  record: RestartRecord,
  timing: CrrTiming = {},
): Promise<ContainerRecreateRequest> {
  const namespace = pod.metadata!.namespace as string;
  const name = crrName(pod.metadata!.name, record.id);
  const crr = containerRecreateRequest({
    namespace,
    name,
    podName: pod.metadata!.name,
    containers: (pod.spec?.containers ?? []).map((c: { name: string }) => c.name),
    labels: { [RESTART_ID_LABEL]: record.id },
    ...timing,
  });
  try {
    return await client.create<ContainerRecreateRequest & KubeObject>(
      KruiseResources.ContainerRecreateRequest,
      crr,
    );
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return client.get<ContainerRecreateRequest & KubeObject>(
      KruiseResources.ContainerRecreateRequest,
      namespace,
      name,
    );
  }
}

/** Marks a pod restarted for this restart: the annotation a re-run skips it by. */
export async function markPodRestarted(
  client: PodRestartClient,
  pod: KubeObject,
  record: RestartRecord,
  crr: string,
  now: Date,
): Promise<void> {
  const value: PodRestartRecord = {
    id: record.id,
    reason: record.reason,
    restartedAt: kubeTime(now),
    containerRecreateRequest: crr,
  };
  await client.mergePatch(Resources.Pod, pod.metadata!.namespace, pod.metadata!.name, {
    metadata: { annotations: { [POD_RESTARTED_ANNOTATION]: JSON.stringify(value) } },
  });
}
