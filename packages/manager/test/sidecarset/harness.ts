import { KruiseResources, type SidecarSet } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import { type KubeClient, type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { injectedPod, stampedSidecarSet } from '../../../../test/support/sidecarset.ts';
import { eventually } from '../env.ts';
import { type StatefulSetEnv, startStatefulSetEnv } from '../statefulset/harness.ts';

export { eventually };

/** A control plane with kruise-manager and a Ready node `n1` (the Advanced StatefulSet tests' environment). */
export type SidecarSetEnv = StatefulSetEnv;
/** Starts the control plane and kruise-manager with a node. */
export const startSidecarSetEnv = startStatefulSetEnv;

/** The SidecarSet with its hash annotations stamped, as its mutating webhook does. */
export const stamped = (ss: SidecarSet) => stampedSidecarSet(ss) as SidecarSet & KubeObject;

/** A SidecarSet (v1beta1) selecting `app: <name>` with one cold sidecar `sidecar:v1`. */
export function sidecarSet(name: string, spec: Record<string, unknown> = {}): SidecarSet {
  return {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'SidecarSet',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      containers: [{ name: 'sidecar', image: 'sidecar:v1' }],
      ...spec,
    },
  } as SidecarSet;
}

/** Creates the SidecarSet (stamped) and returns it as stored. */
export async function createSidecarSet(client: KubeClient, ss: SidecarSet): Promise<SidecarSet> {
  return (await client.create(KruiseResources.SidecarSet, stamped(ss))) as SidecarSet;
}

/** The stored SidecarSet. */
export const getSidecarSet = async (client: KubeClient, name: string) =>
  (await client.get(KruiseResources.SidecarSet, undefined, name)) as SidecarSet & KubeObject;

/** Changes the SidecarSet's spec with `edit` and re-stamps its hashes (as a user with the webhook would). */
export async function editSidecarSet(
  client: KubeClient,
  name: string,
  edit: (ss: SidecarSet) => void,
): Promise<SidecarSet> {
  return retryOnConflict(async () => {
    const ss = await getSidecarSet(client, name);
    edit(ss);
    return (await client.update(KruiseResources.SidecarSet, stamped(ss))) as SidecarSet;
  });
}

/**
 * Creates a pod as the injection webhook leaves it: an app container plus the SidecarSet's
 * sidecars (each hot one as `-1` working and `-2` at the empty image), native sidecars as init
 * containers, the hash annotations and the injected list.
 */
export async function createInjectedPod(
  client: KubeClient,
  ss: SidecarSet,
  name: string,
  labels: Record<string, string> = {},
): Promise<Pod> {
  const stored = await getSidecarSet(client, ss.metadata?.name ?? '');
  const pod = (await client.create(
    Resources.Pod,
    injectedPod(stored, {
      metadata: { name, namespace: 'default', labels: { app: ss.metadata?.name ?? '', ...labels } },
      spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'app:v1' }] },
    }) as KubeObject,
  )) as Pod;
  await settle(client, pod);
  return pod;
}

/** The imageID the played kubelet reports for an image. */
export const imageIdOf = (image: string | undefined) => `sha256:${image}`;

/**
 * Plays kubelet for the pod: every container runs its spec image (a new imageID when the image
 * changed), ready unless named in `notReady`; the pod is Running and Ready when all are.
 */
export async function settle(client: KubeClient, pod: Pod, notReady: string[] = []): Promise<void> {
  const ns = pod.metadata?.namespace ?? 'default';
  const name = pod.metadata?.name ?? '';
  const fresh = (await client.get(Resources.Pod, ns, name)) as Pod;
  const now = kubeTime();
  const status = (c: Container) => ({
    name: c.name,
    image: c.image,
    imageID: imageIdOf(c.image),
    ready: !notReady.includes(c.name),
    restartCount: 0,
    containerID: `containerd://${name}-${c.name}-${c.image}`,
    started: true,
    state: { running: { startedAt: now } },
  });
  const allReady = notReady.length === 0;
  const others = (fresh.status?.conditions ?? []).filter(
    (c) => c.type !== 'Ready' && c.type !== 'ContainersReady',
  );
  await client.mergePatchStatus(Resources.Pod, ns, name, {
    status: {
      phase: 'Running',
      conditions: [
        ...others,
        { type: 'ContainersReady', status: allReady ? 'True' : 'False', lastTransitionTime: now },
        { type: 'Ready', status: allReady ? 'True' : 'False', lastTransitionTime: now },
      ],
      containerStatuses: (fresh.spec?.containers ?? []).map(status),
      ...(fresh.spec?.initContainers?.length
        ? { initContainerStatuses: fresh.spec.initContainers.map(status) }
        : {}),
    },
  });
}

/** The pods of the SidecarSet `app: <name>`, by name. */
export async function podsOf(client: KubeClient, name: string): Promise<Pod[]> {
  const list = await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` });
  return (list.items as unknown as Pod[]).sort((a, b) =>
    (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
}

/** The image of the pod's container (or init container) `name`. */
export const imageIn = (pod: Pod, name: string) =>
  [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === name)?.image;

/** Whether the pod's spec and status disagree on some container's image (kubelet has not caught up). */
export const unsettled = (pod: Pod) =>
  (pod.spec?.containers ?? []).some(
    (c) => pod.status?.containerStatuses?.find((s) => s.name === c.name)?.image !== c.image,
  );

/** The events recorded for an object (of `kind`) in `default`, as `reason: message`. */
export async function eventsOf(client: KubeClient, name: string, kind?: string): Promise<string[]> {
  const list = await client.list(Resources.Event, {
    namespace: 'default',
    fieldSelector: `involvedObject.name=${name}${kind ? `,involvedObject.kind=${kind}` : ''}`,
  });
  return (list.items as { reason?: string; message?: string }[]).map((e) => `${e.reason}: ${e.message}`);
}
