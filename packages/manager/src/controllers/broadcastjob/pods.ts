import {
  BROADCASTJOB_CONTROLLER_UID_LABEL,
  BROADCASTJOB_NAME_LABEL,
  type BroadcastJob,
  GROUP,
} from '@kruise/api';
import { replaceNodeNameAffinity, targetNodeName } from '@kruise/kube-compat';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { controllerOf } from '../../workload/owner-events.ts';
import { podFromTemplate } from '../../workload/pod-from-template.ts';
import { controllerRef } from '../../workload/revision/history.ts';

/** The labels every pod of the job carries: `broadcastjob-name` and `broadcastjob-controller-uid`. */
export function jobPodLabels(job: BroadcastJob): Record<string, string> {
  return {
    [BROADCASTJOB_NAME_LABEL]: job.metadata?.name ?? '',
    [BROADCASTJOB_CONTROLLER_UID_LABEL]: job.metadata?.uid ?? '',
  };
}

/** The job's pod template with the job's labels added (upstream's addLabelToPodTemplate). */
export function labelledTemplate(job: BroadcastJob): PodTemplateSpec {
  const template = job.spec?.template ?? {};
  return {
    ...template,
    metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...jobPodLabels(job) } },
  };
}

/** The controller reference a job's pods carry. */
export const jobOwnerRef = (job: BroadcastJob): OwnerReference =>
  controllerRef({
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'BroadcastJob',
    metadata: { name: job.metadata?.name ?? '', uid: job.metadata?.uid ?? '' },
  });

/**
 * The job's pods among `candidates` (found by its owner UID): those carrying both job labels whose
 * controller is this BroadcastJob, as upstream lists them by label and keeps those it controls.
 */
export function jobPods(job: BroadcastJob, candidates: Pod[]): Pod[] {
  const labels = jobPodLabels(job);
  return candidates.filter((p) => {
    const ref = controllerOf(p);
    if (ref?.kind !== 'BroadcastJob' || ref.uid !== job.metadata?.uid) return false;
    return Object.entries(labels).every(([k, v]) => p.metadata?.labels?.[k] === v);
  });
}

/**
 * A new pod of the job for `nodeName` (Kubernetes' GetPodFromTemplate), pinned to the node through
 * its required node affinity (`pinByAffinity`, upstream's default `--assign-bcj-pods-by-scheduler`)
 * or else by `spec.nodeName`.
 */
export function newJobPod(
  job: BroadcastJob,
  template: PodTemplateSpec,
  nodeName: string,
  pinByAffinity: boolean,
): Pod {
  const pod = podFromTemplate(template, jobOwnerRef(job), job.metadata?.namespace);
  const spec = pod.spec!;
  if (pinByAffinity) spec.affinity = replaceNodeNameAffinity(spec.affinity as never, nodeName) as never;
  else if (nodeName) spec.nodeName = nodeName;
  return pod;
}

/** The job's pods sorted as upstream's filterPods counts them. */
export interface CountedPods {
  active: Pod[];
  failed: Pod[];
  succeeded: Pod[];
}

/**
 * Whether an OnFailure pod has failed for the job: its containers (init and app) restarted more
 * than `restartLimit` times in all (upstream's isPodFailed).
 */
export function restartedPastLimit(pod: Pod, restartLimit: number): boolean {
  if (pod.spec?.restartPolicy !== 'OnFailure') return false;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses.reduce((n, s) => n + (s?.restartCount ?? 0), 0) > restartLimit;
}

/**
 * Upstream's filterPods: Succeeded and Failed pods by phase; a pod not being deleted is failed when
 * it restarted past `restartLimit`, else active; a pod being deleted is neither.
 */
export function countPods(pods: Pod[], restartLimit: number): CountedPods {
  const out: CountedPods = { active: [], failed: [], succeeded: [] };
  for (const p of pods) {
    const phase = p.status?.phase;
    if (phase === 'Succeeded') out.succeeded.push(p);
    else if (phase === 'Failed') out.failed.push(p);
    else if (!p.metadata?.deletionTimestamp) {
      if (restartedPastLimit(p, restartLimit)) out.failed.push(p);
      else out.active.push(p);
    }
  }
  return out;
}

/**
 * The node a job's pod is assigned or pinned to (upstream's getAssignedNode): its `spec.nodeName`,
 * else the node its required affinity pins by name; empty when it names none.
 */
export function assignedNode(pod: Pod): string {
  try {
    return targetNodeName(pod as never);
  } catch {
    return '';
  }
}
