import { type CloneSet, KruiseResources } from '@kruise/api';

import type { ControlPlane } from '@kruise/control-plane';
import { kubeTime } from '@kruise/kube-compat';
import { isConflict, isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll } from 'vitest';
import { reconciledOn } from '../../../../test/support/reconciled.ts';
import type { ManagerApp } from '../../src/index.ts';
import { trimmedPods } from '../../src/informers.ts';
import { addNode, eventually, sourceOf, startEnv, WAIT_MS } from '../env.ts';

export { eventually };

/** A control plane with kruise-manager (webhooks, the CloneSet and pod-readiness controllers). */
export interface CloneSetEnv {
  cp: ControlPlane;
  client: KubeClient;
  app: ManagerApp;
  /** CloneSet reconciles so far, by key. */
  reconciles: Map<string, number>;
  stop(): Promise<void>;
}

/** Starts the control plane and the manager with these extra flags. */
export async function startCloneSetEnv(flags: string[] = []): Promise<CloneSetEnv> {
  const reconciles = new Map<string, number>();
  const { cp, client, app } = await startEnv(flags, {
    onReconcile: (controller, key) => {
      if (controller === 'cloneset') reconciles.set(key, (reconciles.get(key) ?? 0) + 1);
    },
  });
  await addNode(client, 'n1');
  return {
    cp,
    client,
    app,
    reconciles,
    stop: async () => {
      await app.stop();
      await cp.stop();
    },
  };
}

/**
 * Registers beforeAll/afterAll for a test file: the environment (manager `flags`) starts before its
 * tests and stops after them. The returned object is filled in once beforeAll ran; `onStart` sees it
 * then (to keep its client in a variable).
 */
export function useCloneSetEnv(
  flags: string[] = [],
  onStart: (env: CloneSetEnv) => void = () => {},
): CloneSetEnv {
  const env = {} as CloneSetEnv;
  beforeAll(async () => {
    Object.assign(env, await startCloneSetEnv(flags));
    onStart(env);
  });
  afterAll(() => env.stop?.());
  return env;
}

/** A CloneSet of busybox pods selecting `app: <name>`. */
export function cloneSet(name: string, spec: Record<string, unknown> = {}): CloneSet & KubeObject {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
      },
      ...spec,
    },
  } as CloneSet & KubeObject;
}

/** The CloneSet's active pods, by name. */
export async function podsOf(client: KubeClient, name: string): Promise<Pod[]> {
  const list = await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` });
  return (list.items as unknown as Pod[])
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
}

/**
 * Plays kubelet for a pod (and the scheduler when it has not bound it yet): binds it to `node` and reports it Running
 * with its containers ready at their spec images (imageID by image), Ready and the readiness gates'
 * conditions as they are.
 */
export async function runPod(client: KubeClient, pod: Pod, node = 'n1'): Promise<void> {
  const ns = pod.metadata!.namespace!;
  const name = pod.metadata!.name!;
  if (!pod.spec?.nodeName)
    await client
      .request('POST', `/api/v1/namespaces/${ns}/pods/${name}/binding`, {
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } },
      })
      .catch((err) => {
        if (!isConflict(err)) throw err; // else bound by the scheduler meanwhile
      });
  const fresh = (await client.get(Resources.Pod, ns, name)) as unknown as Pod;
  const now = kubeTime();
  const gates = fresh.spec?.readinessGates ?? [];
  const conditions = (fresh.status?.conditions ?? []).filter(
    (c) => c.type !== 'Ready' && c.type !== 'ContainersReady',
  );
  const gatesTrue = gates.every((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True');
  await client.mergePatchStatus(Resources.Pod, ns, name, {
    status: {
      phase: 'Running',
      conditions: [
        ...conditions,
        { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
        { type: 'Ready', status: gatesTrue ? 'True' : 'False', lastTransitionTime: now },
      ],
      containerStatuses: (fresh.spec?.containers ?? []).map((c) => ({
        name: c.name,
        image: c.image,
        imageID: `sha256:${c.image}`,
        ready: true,
        restartCount: 0,
        containerID: `containerd://${name}-${c.name}`,
        // what the node allocated, as kubelet reports it (an in-place resize completes on it)
        ...(c.resources ? { resources: c.resources } : {}),
        started: true,
        state: { running: { startedAt: now } },
      })),
    },
  });
}

/**
 * Runs every pod of the CloneSet until `check` holds. A pod deleted meanwhile (the controller
 * replaces pods) is skipped; any other failure to run a pod fails the wait at once, naming the pod.
 */
export async function runUntil<T>(
  client: KubeClient,
  name: string,
  check: (pods: Pod[]) => T | Promise<T>,
  timeoutMs = WAIT_MS,
): Promise<NonNullable<T>> {
  let failure: Error | undefined;
  const result = await eventually(
    async () => {
      const pods = await podsOf(client, name);
      for (const p of pods)
        if (!failure && !isRunningReady(p))
          await runPod(client, p).catch((err: Error) => {
            if (!isNotFound(err))
              failure = new Error(`running pod ${p.metadata?.name} failed: ${err.message}`, { cause: err });
          });
      return failure ?? check(await podsOf(client, name));
    },
    { timeoutMs, intervalMs: 100, what: `the pods of CloneSet ${name} to pass ${sourceOf(check)}` },
  );
  if (failure) throw failure;
  return result as NonNullable<T>;
}

const isRunningReady = (p: Pod) =>
  p.status?.phase === 'Running' && p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

/**
 * Runs the CloneSet's pods until its status, once it observed the latest generation, passes
 * `check`; returns that status.
 */
export function statusWhen(
  client: KubeClient,
  name: string,
  check: (status: NonNullable<CloneSet['status']>, pods: Pod[]) => boolean,
  timeoutMs = WAIT_MS,
): Promise<NonNullable<CloneSet['status']>> {
  return runUntil(
    client,
    name,
    async (pods) => {
      const cs = await getCloneSet(client, name);
      const s = cs.status;
      return s && s.observedGeneration === cs.metadata?.generation && check(s, pods) ? s : undefined;
    },
    timeoutMs,
  );
}

/** Runs the CloneSet's pods until it has `replicas` pods, all of them available; returns its status. */
export const available = (client: KubeClient, name: string, replicas: number, timeoutMs = WAIT_MS) =>
  statusWhen(
    client,
    name,
    (s, pods) => pods.length === replicas && s.availableReplicas === replicas,
    timeoutMs,
  );

/** The CloneSet as stored. */
export const getCloneSet = (client: KubeClient, name: string) =>
  client.get(KruiseResources.CloneSet, 'default', name) as Promise<CloneSet & KubeObject>;

/** The first container's image. */
export const image = (p: { spec?: { containers?: { image?: string }[] } }) => p.spec?.containers?.[0]?.image;

/** Changes the image of the CloneSet's template. */
export const setImage = (client: KubeClient, name: string, img: string) =>
  client.mergePatch(KruiseResources.CloneSet, 'default', name, {
    spec: { template: { spec: { containers: [{ name: 'main', image: img }] } } },
  });

/** Events recorded on an object, as `type reason message`. */
export const eventsOf = async (client: KubeClient, name: string) =>
  (await client.list(Resources.Event, { namespace: 'default' })).items
    .filter((e) => e.involvedObject?.name === name)
    .map((e) => `${e.type} ${e.reason} ${e.message}`);

/**
 * Resolves once a reconcile of the CloneSet that saw it and its pods as the API has them now has
 * finished: the manager's caches hold them, then a reconcile queued after that is done. What that
 * reconcile did (or chose not to do) is in the API by then — the marker an absence check waits for.
 */
export function reconciled(env: CloneSetEnv, name: string): Promise<void> {
  const { manager } = env.app;
  return reconciledOn(
    env.app.controllers.get('cloneset')!,
    `default/${name}`,
    {
      informer: manager.informers.informerFor<KubeObject>({ resource: KruiseResources.CloneSet }),
      read: async () => [await getCloneSet(env.client, name)],
    },
    {
      informer: trimmedPods(manager),
      read: async () =>
        (await env.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` })).items,
    },
  );
}
