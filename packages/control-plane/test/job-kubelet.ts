import type { ControlPlane } from '../src/index.ts';
import { rawRequest } from './helpers.ts';

/** How a test kubelet ends a pod's container. */
export interface PodEnd {
  phase: 'Succeeded' | 'Failed';
  exitCode?: number;
  /** Extra pod conditions (a DisruptionTarget, say). */
  conditions?: { type: string; status: string; reason?: string }[];
}

/** Pods of Job `job` in `default`, oldest first, as the API lists them. */
export async function jobPods(cp: ControlPlane, job: string): Promise<any[]> {
  const selector = encodeURIComponent(`batch.kubernetes.io/job-name=${job}`);
  const got = await rawRequest(cp, 'GET', `/api/v1/namespaces/default/pods?labelSelector=${selector}`);
  return (got.body.items as any[]).sort((a, b) =>
    a.metadata.creationTimestamp === b.metadata.creationTimestamp
      ? a.metadata.name < b.metadata.name
        ? -1
        : 1
      : a.metadata.creationTimestamp < b.metadata.creationTimestamp
        ? -1
        : 1,
  );
}

/** Pods neither terminal nor being deleted. */
export const activeOf = (pods: any[]) =>
  pods.filter((p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase));

async function writeStatus(cp: ControlPlane, name: string, status: object): Promise<void> {
  const res = await rawRequest(cp, 'PATCH', `/api/v1/namespaces/default/pods/${name}/status`, {
    body: JSON.stringify({ status }),
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  if (res.code !== 200) throw new Error(`pod ${name} status: ${res.code} ${JSON.stringify(res.body)}`);
}

/** Reports the pod Running and Ready, as kubelet does once its containers started. */
export function runPod(cp: ControlPlane, name: string): Promise<void> {
  const now = new Date().toISOString();
  return writeStatus(cp, name, {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
    containerStatuses: [
      {
        name: 'main',
        ready: true,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
        state: { running: { startedAt: now } },
      },
    ],
  });
}

/** Reports the pod's container ended (exit 0 for Succeeded, else `exitCode`, default 1), as kubelet does. */
export function endPod(cp: ControlPlane, name: string, end: PodEnd): Promise<void> {
  const now = new Date().toISOString();
  const exitCode = end.exitCode ?? (end.phase === 'Succeeded' ? 0 : 1);
  return writeStatus(cp, name, {
    phase: end.phase,
    conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: now }, ...(end.conditions ?? [])],
    containerStatuses: [
      {
        name: 'main',
        ready: false,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
        state: {
          terminated: {
            exitCode,
            reason: exitCode ? 'Error' : 'Completed',
            startedAt: now,
            finishedAt: now,
          },
        },
      },
    ],
  });
}
