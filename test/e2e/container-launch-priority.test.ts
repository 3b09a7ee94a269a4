import { KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podLog } from '../support/pod-log.ts';
import { type System, startSystem, until } from './env.ts';

/**
 * Container launch priority end to end, as upstream's ContainerLaunchPriority: the pod webhook injects the
 * barriers, the manager's controller releases `<pod>-barrier` keys, and the local node — as
 * kubelet — keeps a container in CreateContainerConfigError until its key exists. Every container
 * appends its name to a shared emptyDir file when it starts and prints the file, so the last one's
 * log is the order in which they started.
 */
let sys: System;
const NS = 'default';
const COMPLETED = 'apps.kruise.io/container-launch-priority-completed';

/** A busybox container that records its start in /order/started, prints the record, then waits for SIGTERM. */
const recording = (name: string, env: object[] = [], tag = 'v1') => ({
  name,
  image: `${sys.registry}/busybox:${tag}`,
  command: [
    'sh',
    '-c',
    `echo ${name} >> /order/started; cat /order/started; trap 'exit 0' TERM; while true; do sleep 0.2; done`,
  ],
  env,
  volumeMounts: [{ name: 'order', mountPath: '/order' }],
});
const priority = (p: number) => [{ name: 'KRUISE_CONTAINER_PRIORITY', value: String(p) }];
/** The CloneSet's template; `changed` is the image tag of app and sidecar (agent stays at v1). */
const prioTemplate = (changed: string) => ({
  metadata: { labels: { app: 'prio' } },
  spec: {
    nodeName: sys.node,
    terminationGracePeriodSeconds: 1,
    volumes: [{ name: 'order', emptyDir: {} }],
    // list order is not launch order: sidecar (10), then agent (5), then app (0)
    containers: [
      recording('app', [], changed),
      recording('agent', priority(5)),
      recording('sidecar', priority(10), changed),
    ],
  },
});

beforeAll(async () => {
  sys = await startSystem('launch-node');
  // Both scenarios run side by side: each release waits for the local node's next start attempt.
  await sys.client.create(KruiseResources.CloneSet, {
    metadata: { name: 'prio', namespace: NS },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'prio' } },
      updateStrategy: { type: 'InPlaceIfPossible' },
      template: prioTemplate('v1'),
    },
  });
  await sys.client.create(Resources.Pod, {
    metadata: {
      generateName: 'ordered-',
      namespace: NS,
      annotations: { 'apps.kruise.io/container-launch-priority': 'Ordered' },
    },
    spec: {
      nodeName: sys.node,
      terminationGracePeriodSeconds: 1,
      volumes: [{ name: 'order', emptyDir: {} }],
      containers: [recording('first'), recording('second'), recording('third')],
    },
  });
});
afterAll(async () => {
  // the CloneSet first, so it does not replace the pod the system's stop deletes
  await sys?.client.delete(KruiseResources.CloneSet, NS, 'prio').catch(() => undefined);
  await sys?.stop();
});

/** The pod (found by label or name prefix) once all its containers are Ready. */
async function readyPod(match: (p: KubeObject) => boolean): Promise<KubeObject> {
  return until(async () => {
    const pod = (await sys.client.list(Resources.Pod, { namespace: NS })).items.find(match);
    const ready = pod?.status?.conditions?.find((c: any) => c.type === 'ContainersReady')?.status === 'True';
    return ready ? pod : undefined;
  }, 60_000).catch(async (err) => {
    for (const p of [sys.manager, sys.localNode]) console.log(`--- ${p.name}\n${p.output().slice(-4000)}`);
    throw err;
  });
}

/** What a user checks after the pod started: start order, startedAt, the barrier, the events. */
async function expectLaunchedInOrder(pod: KubeObject, order: string[], keys: string[]): Promise<void> {
  const name = pod.metadata!.name!;
  // the last container to start saw every earlier one in the shared file
  expect(await podLog(sys.client, name, { container: order.at(-1)! })).toBe(`${order.join('\n')}\n`);
  const startedAt = order.map((c) =>
    Date.parse(pod.status.containerStatuses.find((s: any) => s.name === c).state.running.startedAt),
  );
  expect([...startedAt].sort((a, b) => a - b)).toEqual(startedAt);
  const barrier = await sys.client.get(Resources.ConfigMap, NS, `${name}-barrier`);
  expect(barrier.data).toEqual(Object.fromEntries(keys.map((k) => [k, 'true'])));
  expect(barrier.metadata?.ownerReferences).toEqual([
    { apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata!.uid },
  ]);
  const done = await until(async () => {
    const p = await sys.client.get(Resources.Pod, NS, name);
    return p.metadata?.annotations?.[COMPLETED] === 'true' ? p : undefined;
  });
  expect(done.metadata?.uid).toBe(pod.metadata?.uid);
  // kubelet's CreateContainerConfigError while the lowest priority's key was missing
  const events = (await sys.client.list(Resources.Event, { namespace: NS })).items.filter(
    (e: any) => e.involvedObject.name === name && e.reason === 'Failed',
  );
  expect(events.map((e: any) => e.message)).toContain(
    `Error: couldn't find key ${keys.at(-1)} in ConfigMap ${NS}/${name}-barrier`,
  );
}

describe('container launch priority (manager, local node, containerd)', () => {
  it('starts a CloneSet pod’s containers by KRUISE_CONTAINER_PRIORITY, highest first', async () => {
    const pod = await readyPod((p) => p.metadata?.labels?.app === 'prio');
    await expectLaunchedInOrder(pod, ['sidecar', 'agent', 'app'], ['p_10', 'p_5', 'p_0']);
  }, 90_000);

  it('updates the CloneSet pod in place in batches by priority: sidecar first, app once sidecar is Ready', async () => {
    const before = await readyPod((p) => p.metadata?.labels?.app === 'prio');
    await sys.client.mergePatch(KruiseResources.CloneSet, NS, 'prio', {
      spec: { template: prioTemplate('v2') },
    });
    const restarted = (p: KubeObject, c: string) =>
      p.status.containerStatuses.find((s: any) => s.name === c && s.ready && s.restartCount === 1);
    const after = await readyPod(
      (p) => p.metadata?.labels?.app === 'prio' && restarted(p, 'sidecar') && restarted(p, 'app'),
    );
    expect(after.metadata?.uid).toBe(before.metadata?.uid);
    const state = JSON.parse(after.metadata!.annotations!['apps.kruise.io/inplace-update-state']);
    expect(state.containerBatchesRecord.map((b: any) => b.containers)).toEqual([['sidecar'], ['app']]);
    expect(after.status.containerStatuses.find((s: any) => s.name === 'agent').restartCount).toBe(0);
    // app restarted last and saw sidecar's restart in the shared file
    expect(await podLog(sys.client, after.metadata!.name!, { container: 'app' })).toBe(
      'sidecar\nagent\napp\nsidecar\napp\n',
    );
  }, 90_000);

  it('starts the containers of a pod annotated Ordered in list order', async () => {
    const pod = await readyPod((p) => p.metadata?.name?.startsWith('ordered-') === true);
    await expectLaunchedInOrder(pod, ['first', 'second', 'third'], ['p_0', 'p_-1', 'p_-2']);
  }, 90_000);
});
