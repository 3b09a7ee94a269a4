import { type BroadcastJob, KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { kubeTime } from '@kruise/kube-compat';
import { isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { eventually, startEnv } from '../env.ts';

export { eventually };

/** A control plane with kruise-manager on a clock the test moves, and nodes created as objects. */
export interface BroadcastJobEnv {
  cp: ControlPlane;
  client: KubeClient;
  /** Moves the manager's clock forward. */
  advance(ms: number): void;
  stop(): Promise<void>;
}

/** Starts the environment (manager `flags`). */
export async function startBroadcastJobEnv(flags: string[] = []): Promise<BroadcastJobEnv> {
  let offsetMs = 0;
  const { cp, client, app } = await startEnv(flags, { now: () => Date.now() + offsetMs });
  return {
    cp,
    client,
    advance: (ms) => {
      offsetMs += ms;
    },
    stop: async () => {
      await app.stop();
      await cp.stop();
    },
  };
}

/** A Ready node with room for 110 pods, 4 CPUs and 8Gi. */
export function node(name: string, labels: Record<string, string> = {}, spec: Node['spec'] = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    spec,
    status: {
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: kubeTime(Date.now() - 60_000) }],
    },
  };
}

/** Creates nodes (objects only: no kubelet runs their pods; the test plays it). */
export async function addNodes(client: KubeClient, ...nodes: Node[]): Promise<void> {
  for (const n of nodes) await client.create(Resources.Node, n as unknown as KubeObject);
}

/** A BroadcastJob (v1beta1) of busybox pods that restart `restartPolicy`. */
export function broadcastJob(
  name: string,
  spec: Record<string, unknown> = {},
  podSpec: Record<string, unknown> = {},
  restartPolicy = 'Never',
): BroadcastJob & KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'BroadcastJob',
    metadata: { name, namespace: 'default' },
    spec: {
      template: { spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy, ...podSpec } },
      ...spec,
    },
  } as BroadcastJob & KubeObject;
}

/** The stored job (undefined once deleted). */
export async function getJob(client: KubeClient, name: string): Promise<BroadcastJob | undefined> {
  try {
    return (await client.get(KruiseResources.BroadcastJob, 'default', name)) as BroadcastJob;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The job's pods (by its name label), those being deleted left out unless `all`. */
export async function podsOf(client: KubeClient, job: string, all = false): Promise<Pod[]> {
  const list = await client.list(Resources.Pod, {
    namespace: 'default',
    labelSelector: `broadcastjob-name=${job}`,
  });
  return (list.items as unknown as Pod[]).filter((p) => all || !p.metadata?.deletionTimestamp);
}

/** The node a job's pod is pinned to through its required node affinity. */
export const pinnedNode = (pod: Pod): string | undefined =>
  pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]
    ?.matchFields?.[0]?.values?.[0];

/** Plays kubelet: the pod's phase (and its containers' restart count). */
export async function setPhase(
  client: KubeClient,
  pod: Pod,
  phase: 'Running' | 'Succeeded' | 'Failed',
  restartCount = 0,
): Promise<void> {
  await client.mergePatchStatus(Resources.Pod, 'default', pod.metadata?.name ?? '', {
    status: {
      phase,
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: phase === 'Running',
        restartCount,
        state:
          phase === 'Running'
            ? { running: { startedAt: kubeTime() } }
            : { terminated: { exitCode: phase === 'Succeeded' ? 0 : 1 } },
      })),
    },
  });
}

/** The events recorded for an object, as `reason: message`. */
export async function eventsOf(client: KubeClient, name: string): Promise<string[]> {
  const list = await client.list(Resources.Event, {
    namespace: 'default',
    fieldSelector: `involvedObject.name=${name}`,
  });
  return (list.items as { reason?: string; message?: string }[]).map((e) => `${e.reason}: ${e.message}`);
}

/** Touches the job (an annotation) so the controller looks at it now, after the clock moved. */
export async function touch(client: KubeClient, name: string): Promise<void> {
  await client.mergePatch(KruiseResources.BroadcastJob, 'default', name, {
    metadata: { annotations: { touched: String(Date.now()) } },
  });
}
