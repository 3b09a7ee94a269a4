import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchesInOrder } from '../src/controllers/containerlaunchpriority/controller.ts';
import type { ManagerApp } from '../src/index.ts';
import { trimPod } from '../src/informers.ts';
import { barrierEnv, pendingPriorities } from '../src/workload/launch-priority.ts';
import { eventually, startEnv } from './env.ts';

const COMPLETED = 'apps.kruise.io/container-launch-priority-completed';

describe('pending launch priorities (upstream findNextPriorities)', () => {
  const withPriorities = (ready: string[], priorities: (number | undefined)[]): Pod => ({
    spec: {
      containers: priorities.map((p, i) => ({
        name: 'abcdef'[i]!,
        ...(p === undefined ? {} : { env: [barrierEnv(p, 'fake')] }),
      })),
    },
    status: {
      containerStatuses: 'abcdef'.split('').map((name) => ({ name, ready: ready.includes(name) }) as any),
    },
  });

  it('lists the priorities of not-ready containers with a barrier, ascending', () => {
    expect(pendingPriorities(withPriorities(['b'], [3, 5, 0, undefined, -1, 4]))).toEqual([-1, 0, 3, 4]);
    expect(pendingPriorities(withPriorities(['b', 'f'], [3, 5, 0, undefined, -1, 3]))).toEqual([-1, 0, 3]);
    expect(pendingPriorities(withPriorities([], [undefined, undefined]))).toEqual([]);
  });

  it('reads a short or malformed barrier key as priority 0 (upstream issue #1413 panicked)', () => {
    const pod: Pod = {
      spec: {
        containers: [
          {
            name: 'a',
            env: [
              { name: 'KRUISE_CONTAINER_BARRIER', valueFrom: { configMapKeyRef: { name: 'x', key: 'p' } } },
            ],
          },
          { name: 'b', env: [{ name: 'KRUISE_CONTAINER_BARRIER', value: 'set by hand' }] },
        ],
      },
    };
    expect(pendingPriorities(pod)).toEqual([0, 0]);
  });

  it('queues a pod only while it is launching, also from the trimmed pod cache', () => {
    const pod = withPriorities([], [0, -1]);
    pod.metadata = { name: 'p', namespace: 'default', annotations: { other: 'x' } };
    expect(launchesInOrder(pod)).toBe(true);
    expect(launchesInOrder(trimPod(pod))).toBe(true);
    const done = { ...pod, metadata: { ...pod.metadata, annotations: { [COMPLETED]: 'true' } } };
    expect(launchesInOrder(done)).toBe(false);
    expect(launchesInOrder(trimPod(done))).toBe(false);
    const ready = {
      ...pod,
      status: { ...pod.status, conditions: [{ type: 'ContainersReady', status: 'True' }] },
    };
    expect(launchesInOrder(ready)).toBe(false);
    expect(launchesInOrder(withPriorities(['a', 'b'], [0, -1]))).toBe(false);
    expect(launchesInOrder(withPriorities([], [undefined, undefined]))).toBe(false);
  });
});

describe('container-launch-priority controller (embedded control plane)', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let app: ManagerApp;
  beforeAll(async () => {
    ({ cp, client, app } = await startEnv());
  });
  afterAll(async () => {
    await app?.stop();
    await cp?.stop();
  });

  const getPod = (name: string) => client.get(Resources.Pod, 'default', name) as Promise<Pod>;
  const barrier = (pod: string) =>
    client.get(Resources.ConfigMap, 'default', `${pod}-barrier`).catch(() => undefined) as Promise<
      ConfigMap | undefined
    >;
  /** Waits until the barrier holds exactly these keys. */
  const released = (pod: string, keys: string[]) =>
    eventually(async () => {
      const cm = await barrier(pod);
      return JSON.stringify(Object.keys(cm?.data ?? {}).sort()) === JSON.stringify([...keys].sort())
        ? cm
        : undefined;
    });
  /** Plays kubelet: these containers are Ready, the others waiting. */
  const ready = async (pod: Pod, names: string[]) =>
    client.mergePatchStatus(Resources.Pod, 'default', pod.metadata!.name!, {
      status: {
        containerStatuses: pod.spec!.containers.map((c) => ({
          name: c.name,
          ready: names.includes(c.name),
          image: c.image,
          imageID: '',
          restartCount: 0,
          ...(names.includes(c.name)
            ? { state: { running: { startedAt: new Date().toISOString() } } }
            : { state: { waiting: { reason: 'CreateContainerConfigError' } } }),
        })),
      },
    });
  const containers = (names: string[], env?: (i: number) => object[]) =>
    names.map((name, i) => ({ name, image: 'busybox:v1', ...(env ? { env: env(i) } : {}) }));

  it('releases an Ordered pod container by container, then marks it completed', async () => {
    const pod = (await client.create(Resources.Pod, {
      metadata: {
        generateName: 'ordered-',
        namespace: 'default',
        annotations: { 'apps.kruise.io/container-launch-priority': 'Ordered' },
      },
      spec: { containers: containers(['first', 'second', 'third']) },
    } as KubeObject)) as Pod;
    const name = pod.metadata!.name!;
    const cm = await released(name, ['p_0']);
    expect(cm.metadata?.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata!.uid },
    ]);
    expect(cm.data).toEqual({ p_0: 'true' });

    await ready(pod, ['first']);
    await released(name, ['p_0', 'p_-1']);
    expect((await getPod(name)).metadata?.annotations?.[COMPLETED]).toBeUndefined();

    await ready(pod, ['first', 'second']);
    await released(name, ['p_0', 'p_-1', 'p_-2']);
    await eventually(async () => (await getPod(name)).metadata?.annotations?.[COMPLETED] === 'true');

    // the barrier lives as long as the pod (garbage-collected through its owner reference)
    await client.delete(Resources.Pod, 'default', name, { gracePeriodSeconds: 0 });
    await eventually(async () => (await barrier(name)) === undefined);
  });

  it('releases equal KRUISE_CONTAINER_PRIORITY values together, highest first', async () => {
    const priorities = ['10', '10', '0'];
    const pod = (await client.create(Resources.Pod, {
      metadata: { name: 'by-env', namespace: 'default' },
      spec: {
        containers: containers(['proxy', 'agent', 'app'], (i) => [
          { name: 'KRUISE_CONTAINER_PRIORITY', value: priorities[i] },
        ]),
      },
    } as KubeObject)) as Pod;
    await released('by-env', ['p_10']);
    const controller = app.controllers.get('container-launch-priority')!;
    const passes = controller.counts.success;
    await ready(pod, ['proxy']);
    // agent (priority 10) is not ready yet: after the pass the status change caused, app (priority 0) still waits
    await eventually(() => controller.counts.success > passes && controller.queue.len() === 0);
    expect(Object.keys((await barrier('by-env'))?.data ?? {})).toEqual(['p_10']);
    await ready(pod, ['proxy', 'agent']);
    await released('by-env', ['p_10', 'p_0']);
    await eventually(async () => (await getPod('by-env')).metadata?.annotations?.[COMPLETED] === 'true');
  });

  it('creates the barrier again on the next pod event when it was deleted while launching', async () => {
    await client.create(Resources.Pod, {
      metadata: {
        name: 'lost',
        namespace: 'default',
        annotations: { 'apps.kruise.io/container-launch-priority': 'Ordered' },
      },
      spec: { containers: containers(['a', 'b']) },
    } as KubeObject);
    await released('lost', ['p_0']);
    await client.delete(Resources.ConfigMap, 'default', 'lost-barrier');
    await eventually(async () => (await barrier('lost')) === undefined);
    await client.mergePatch(Resources.Pod, 'default', 'lost', { metadata: { labels: { touched: 'yes' } } });
    await released('lost', ['p_0']);
  });

  it('leaves pods without launch barriers alone', async () => {
    await client.create(Resources.Pod, {
      metadata: { name: 'plain', namespace: 'default' },
      spec: { containers: containers(['a', 'b']) },
    } as KubeObject);
    // pod events arrive in order: once the later pod is served, the plain one's event was handled
    await client.create(Resources.Pod, {
      metadata: {
        name: 'marker',
        namespace: 'default',
        annotations: { 'apps.kruise.io/container-launch-priority': 'Ordered' },
      },
      spec: { containers: containers(['a', 'b']) },
    } as KubeObject);
    await released('marker', ['p_0']);
    expect(await barrier('plain')).toBeUndefined();
    expect((await getPod('plain')).metadata?.annotations?.[COMPLETED]).toBeUndefined();
  });
});
