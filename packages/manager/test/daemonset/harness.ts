import { type DaemonSet, KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { targetNodeName } from '@kruise/kube-compat';
import { isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { runPod } from '../cloneset/harness.ts';
import { addNode, eventually, startEnv } from '../env.ts';

export { addNode, eventually };

/** A control plane with kruise-manager and the nodes `nodes` (Ready, no taints). */
export interface DaemonSetEnv {
  cp: ControlPlane;
  client: KubeClient;
  stop(): Promise<void>;
}

/** Starts the environment with kruise-manager (`flags`) and Ready nodes. */
export async function startDaemonSetEnv(nodes: string[], flags: string[] = []): Promise<DaemonSetEnv> {
  const { cp, client, app } = await startEnv(flags);
  for (const n of nodes) await addNode(client, n);
  return {
    cp,
    client,
    stop: async () => {
      await app.stop();
      await cp.stop();
    },
  };
}

/** An Advanced DaemonSet (v1beta1) of busybox pods selecting `app: <name>`. */
export function daemonSet(name: string, spec: Record<string, unknown> = {}): DaemonSet & KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'DaemonSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
      },
      ...spec,
    },
  } as DaemonSet & KubeObject;
}

/** The DaemonSet's pods (not being deleted unless `all`). */
export async function podsOf(client: KubeClient, name: string, all = false): Promise<Pod[]> {
  const list = await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` });
  return (list.items as unknown as Pod[]).filter((p) => all || !p.metadata?.deletionTimestamp);
}

/** The node each pod is for, sorted. */
export const nodesOf = (pods: Pod[]) => pods.map((p) => targetNodeName(p as never)).sort();

/** The stored DaemonSet. */
export const getDs = (client: KubeClient, name: string) =>
  client.get(KruiseResources.DaemonSet, 'default', name) as Promise<DaemonSet & KubeObject>;

const ready = (p: Pod) =>
  p.status?.phase === 'Running' && p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

/**
 * Plays kubelet for every pod of the DaemonSet until `check` holds: runs it on the node it is pinned
 * to, and removes it once it is being deleted; a pod deleted meanwhile is skipped.
 */
export function runUntil<T>(
  client: KubeClient,
  name: string,
  check: (pods: Pod[], ds: DaemonSet) => T | Promise<T>,
  timeoutMs?: number,
): Promise<NonNullable<T>> {
  return eventually(
    async () => {
      for (const p of await podsOf(client, name, true))
        if (p.metadata?.deletionTimestamp)
          // kubelet stops the containers and removes the pod
          await client
            .delete(Resources.Pod, 'default', p.metadata.name!, { gracePeriodSeconds: 0 })
            .catch(() => undefined);
        else if (!ready(p))
          await runPod(client, p, targetNodeName(p as never)).catch((err: Error) => {
            if (!isNotFound(err)) throw err;
          });
      const ds = await getDs(client, name);
      if (ds.status?.observedGeneration !== ds.metadata?.generation) return undefined;
      return check(await podsOf(client, name), ds);
    },
    { timeoutMs, intervalMs: 100, what: `the pods of DaemonSet ${name} to pass the check` },
  ) as Promise<NonNullable<T>>;
}

/** The image of a pod's first container. */
export const imageOf = (p: Pod) => p.spec?.containers?.[0]?.image;
