import { KruiseResources } from '@kruise/api';
import { type KubeClient, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  cloneSet,
  eventually,
  image,
  podsOf,
  reconciled,
  runUntil,
  setImage,
  statusWhen,
  useCloneSetEnv,
} from './harness.ts';

let client: KubeClient;
const env = useCloneSetEnv([], (started) => {
  client = started.client;
});

const state = (p: Pod) => p.metadata?.labels?.['lifecycle.apps.kruise.io/state'];
const condition = (p: Pod, type: string) => p.status?.conditions?.find((c) => c.type === type);
const labelPod = (p: Pod, labels: Record<string, string | null>) =>
  client.mergePatch(Resources.Pod, 'default', p.metadata!.name!, { metadata: { labels } });
const podNamed = async (name: string) => (await client.get(Resources.Pod, 'default', name)) as unknown as Pod;

describe('CloneSet lifecycle hooks', () => {
  it('preDelete: a specified-delete pod waits in PreparingDelete, held not-ready, until the hook label goes', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('predelete', {
        replicas: 2,
        lifecycle: {
          preDelete: { labelsHandler: { 'example.io/block-deleting': 'true' }, markPodNotReady: true },
        },
        template: {
          metadata: { labels: { app: 'predelete', 'example.io/block-deleting': 'true' } },
          spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
        },
      }),
    );
    await statusWhen(client, 'predelete', (s, pods) => pods.length === 2 && s.availableReplicas === 2);
    const [victim] = await podsOf(client, 'predelete');
    const name = victim!.metadata!.name!;
    await labelPod(victim!, { 'apps.kruise.io/specified-delete': 'true' });
    const held = await eventually(async () => {
      const p = await podNamed(name);
      return state(p) === 'PreparingDelete' && condition(p, 'KruisePodReady')?.status === 'False'
        ? p
        : undefined;
    });
    expect(condition(held, 'KruisePodReady')!.message).toBe(
      '[{"userAgent":"Lifecycle","key":"preDeleteHook"}]',
    );
    expect(condition(held, 'Ready')?.status).toBe('False');
    // the PreparingDelete pod still counts toward replicas: once the controller saw it, no replacement
    await reconciled(env, 'predelete');
    expect(await podsOf(client, 'predelete')).toHaveLength(2);
    expect(state(await podNamed(name))).toBe('PreparingDelete');
    // unless the CloneSet asks to leave PreparingDelete pods out of scaling
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'predelete', {
      metadata: { labels: { 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete': 'true' } },
    });
    await runUntil(client, 'predelete', (pods) => pods.length === 3);
    expect(state(await podNamed(name))).toBe('PreparingDelete');
    await labelPod(held, { 'example.io/block-deleting': null });
    await statusWhen(
      client,
      'predelete',
      (s, pods) =>
        pods.length === 2 && s.availableReplicas === 2 && !pods.some((p) => p.metadata!.name === name),
    );
  });

  it('inPlaceUpdate: PreparingUpdate until the hook goes, then Updating, Updated, and Normal once the hook is back', async () => {
    const hook = { 'example.io/unready-blocker': 'true' };
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('inplacehook', {
        replicas: 1,
        updateStrategy: { type: 'InPlaceIfPossible' },
        lifecycle: { inPlaceUpdate: { labelsHandler: hook } },
        template: {
          metadata: { labels: { app: 'inplacehook', ...hook } },
          spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
        },
      }),
    );
    await statusWhen(client, 'inplacehook', (s) => s.availableReplicas === 1);
    const [pod] = await podsOf(client, 'inplacehook');
    const name = pod!.metadata!.name!;
    await setImage(client, 'inplacehook', 'busybox:v2');
    await eventually(async () => state(await podNamed(name)) === 'PreparingUpdate');
    // the controller saw the pod PreparingUpdate with the hook on it: no update
    await reconciled(env, 'inplacehook');
    expect(image(await podNamed(name))).toBe('busybox:v1');
    await labelPod(pod!, { 'example.io/unready-blocker': null });
    const updated = await runUntil(client, 'inplacehook', async () => {
      const p = await podNamed(name);
      return state(p) === 'Updated' ? p : undefined;
    });
    expect(image(updated)).toBe('busybox:v2');
    await labelPod(updated, hook);
    await eventually(async () => state(await podNamed(name)) === 'Normal');
    // The CloneSet's status is written after the pod's label: wait for it.
    await statusWhen(client, 'inplacehook', (s) => s.updatedReplicas === 1);
  });

  it('preNormal: a pod stays PreparingNormal (unavailable) until all hook labels are on it', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('prenormal', {
        replicas: 1,
        lifecycle: { preNormal: { labelsHandler: { 'example.io/registered': 'true' } } },
      }),
    );
    const [pod] = await runUntil(client, 'prenormal', (pods) =>
      pods.length === 1 && pods[0]!.status?.phase === 'Running' ? pods : undefined,
    );
    // the controller saw the pod running without the hook label: it stays PreparingNormal
    await reconciled(env, 'prenormal');
    expect(state(await podNamed(pod!.metadata!.name!))).toBe('PreparingNormal');
    // Its status counts the running pod, not as available (the status may be written late).
    const counted = await statusWhen(client, 'prenormal', (s) => s.replicas === 1);
    expect(counted.availableReplicas).toBe(0);
    await labelPod(pod!, { 'example.io/registered': 'true' });
    await statusWhen(client, 'prenormal', (s) => s.availableReplicas === 1);
    expect(state(await podNamed(pod!.metadata!.name!))).toBe('Normal');
  });
});
