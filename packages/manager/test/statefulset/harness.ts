import { KruiseResources, type StatefulSet } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { runPod } from '../cloneset/harness.ts';
import { addNode, eventually, startEnv } from '../env.ts';

export { eventually, runPod };

/** A control plane with kruise-manager, one node, and a record of the pods' creation order. */
export interface StatefulSetEnv {
  cp: ControlPlane;
  client: KubeClient;
  stop(): Promise<void>;
}

/** Registers the environment for a test file (manager `flags`); filled in once beforeAll ran. */
export async function startStatefulSetEnv(flags: string[] = []): Promise<StatefulSetEnv> {
  const { cp, client, app } = await startEnv(flags);
  await addNode(client, 'n1');
  return {
    cp,
    client,
    stop: async () => {
      await app.stop();
      await cp.stop();
    },
  };
}

/** An Advanced StatefulSet (v1beta1) of busybox pods selecting `app: <name>`. */
export function statefulSet(name: string, spec: Record<string, unknown> = {}): StatefulSet & KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default' },
    spec: {
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
      },
      ...spec,
    },
  } as StatefulSet & KubeObject;
}

/** The set's pods (not being deleted), by ordinal. */
export async function podsOf(client: KubeClient, name: string, all = false): Promise<Pod[]> {
  const list = await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` });
  const ordinal = (p: Pod) => Number(p.metadata?.name?.slice(p.metadata.name.lastIndexOf('-') + 1));
  return (list.items as unknown as Pod[])
    .filter((p) => all || !p.metadata?.deletionTimestamp)
    .sort((a, b) => ordinal(a) - ordinal(b));
}

/** The names of the set's pods, by ordinal. */
export const podNames = async (client: KubeClient, name: string) =>
  (await podsOf(client, name)).map((p) => p.metadata?.name);

/** The stored set. */
export const getSet = async (client: KubeClient, name: string) =>
  (await client.get(KruiseResources.StatefulSet, 'default', name)) as StatefulSet;

const ready = (pod: Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** A pod of an image whose name says `broken`: its container never gets ready. */
export const isBroken = (pod: Pod) => (pod.spec?.containers ?? []).some((c) => c.image?.includes('broken'));

/** Plays kubelet for a pod whose container keeps crashing: bound, Running, never Ready (one status write). */
export async function crashLoop(client: KubeClient, pod: Pod, node = 'n1'): Promise<void> {
  const name = pod.metadata?.name ?? '';
  if (!pod.spec?.nodeName)
    await client
      .request('POST', `/api/v1/namespaces/default/pods/${name}/binding`, {
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } },
      })
      .catch(() => undefined);
  const fresh = (await client.get(Resources.Pod, 'default', name)) as unknown as Pod;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await client.mergePatchStatus(Resources.Pod, 'default', name, {
    status: {
      phase: 'Running',
      conditions: [
        ...(fresh.status?.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady'),
        { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: now },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: now },
      ],
      containerStatuses: (fresh.spec?.containers ?? []).map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: false,
        restartCount: 3,
        started: false,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
      })),
    },
  });
}

/**
 * Plays kubelet for every pod of the set that is not running and ready yet (a pod whose image says
 * `broken` runs but never gets ready), and finishes graceful deletions
 * (as kubelet does once the containers are gone), until `check` holds.
 */
export async function runSetUntil<T>(
  client: KubeClient,
  name: string,
  check: () => Promise<T> | T,
  timeoutMs = 20_000,
): Promise<NonNullable<T>> {
  return eventually(
    async () => {
      for (const pod of await podsOf(client, name, true)) {
        try {
          if (pod.metadata?.deletionTimestamp)
            await client.delete(Resources.Pod, 'default', pod.metadata.name ?? '', { gracePeriodSeconds: 0 });
          else if (isBroken(pod)) {
            if (pod.status?.phase !== 'Running') await crashLoop(client, pod);
          } else if (pod.status?.phase !== 'Running' || !ready(pod)) await runPod(client, pod);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      return check();
    },
    { timeoutMs, intervalMs: 50, what: `StatefulSet ${name}` },
  );
}

/** The set's status once it has observed its latest spec (observedGeneration caught up). */
export async function observedStatus(client: KubeClient, name: string) {
  const set = await getSet(client, name);
  return set.status?.observedGeneration === set.metadata?.generation ? set.status : undefined;
}
