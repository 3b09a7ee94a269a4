import { type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION,
  versionAltAnnotation,
  versionAnnotation,
} from '../../src/workload/sidecarset/index.ts';
import {
  createInjectedPod,
  createSidecarSet,
  editSidecarSet,
  eventsOf,
  eventually,
  getSidecarSet,
  imageIn,
  podsOf,
  type SidecarSetEnv,
  settle,
  sidecarSet,
  startSidecarSetEnv,
} from './harness.ts';

/**
 * Hot upgrades, native sidecars and pods missing their sidecars, against the control plane
 * (injection and kubelet played by the test).
 */
let env: SidecarSetEnv;
beforeAll(async () => {
  env = await startSidecarSetEnv();
}, 60_000);
afterAll(() => env?.stop());

const EMPTY = 'empty:v1';
const annotation = (p: Pod, key: string) => p.metadata?.annotations?.[key];

describe('hot upgrade', () => {
  it('starts the new image in the empty copy, then puts the old copy back to the empty image', async () => {
    const ss = await createSidecarSet(
      env.client,
      sidecarSet('hot', {
        containers: [
          {
            name: 'proxy',
            image: 'proxy:v1',
            upgradeStrategy: { upgradeType: 'HotUpgrade', hotUpgradeEmptyImage: EMPTY },
          },
        ],
      }),
    );
    await createInjectedPod(env.client, ss, 'hot-a');
    await eventually(async () =>
      (await getSidecarSet(env.client, 'hot')).status?.readyPods === 1 ? true : undefined,
    );
    const updated = await editSidecarSet(env.client, 'hot', (s) => {
      s.spec!.containers![0]!.image = 'proxy:v2';
    });
    const upgrading = await eventually(async () => {
      const p = (await podsOf(env.client, 'hot'))[0]!;
      return imageIn(p, 'proxy-2') === 'proxy:v2' ? p : undefined;
    });
    expect(imageIn(upgrading, 'proxy-1')).toBe('proxy:v1');
    expect(annotation(upgrading, SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION)).toBe(
      '{"proxy":"proxy-2"}',
    );
    expect(annotation(upgrading, versionAnnotation('proxy-2'))).toBe(updated.metadata?.resourceVersion);
    expect(annotation(upgrading, versionAltAnnotation('proxy-1'))).toBe(updated.metadata?.resourceVersion);
    // the old copy keeps serving until kubelet runs the new one
    await new Promise((r) => setTimeout(r, 1000));
    expect(imageIn((await podsOf(env.client, 'hot'))[0]!, 'proxy-1')).toBe('proxy:v1');
    await settle(env.client, upgrading);
    const flipped = await eventually(async () => {
      const p = (await podsOf(env.client, 'hot'))[0]!;
      return imageIn(p, 'proxy-1') === EMPTY ? p : undefined;
    });
    expect(imageIn(flipped, 'proxy-2')).toBe('proxy:v2');
    expect(annotation(flipped, versionAnnotation('proxy-1'))).toBe('0');
    expect(annotation(flipped, versionAltAnnotation('proxy-2'))).toBe('0');
    expect(
      await eventually(async () =>
        (await eventsOf(env.client, 'hot-a', 'Pod')).find((e) => e.startsWith('ResetContainerSucceed')),
      ),
    ).toBe('ResetContainerSucceed: reset sidecar container image empty successfully');
    await settle(env.client, flipped);
    expect(
      await eventually(async () => {
        const s = (await getSidecarSet(env.client, 'hot')).status;
        return s?.updatedReadyPods === 1 ? s : undefined;
      }),
    ).toMatchObject({ matchedPods: 1, updatedPods: 1, readyPods: 1 });
  }, 60_000);
});

describe('native sidecars (beyond upstream)', () => {
  it('rolls the image of a restartPolicy Always init container in place', async () => {
    const ss = await createSidecarSet(
      env.client,
      sidecarSet('native', {
        containers: [],
        initContainers: [{ name: 'agent', image: 'agent:v1', restartPolicy: 'Always' }],
      }),
    );
    await createInjectedPod(env.client, ss, 'native-a');
    const uid = (await podsOf(env.client, 'native'))[0]!.metadata?.uid;
    await editSidecarSet(env.client, 'native', (s) => {
      s.spec!.initContainers![0]!.image = 'agent:v2';
    });
    const pod = await eventually(async () => {
      const p = (await podsOf(env.client, 'native'))[0]!;
      return imageIn(p, 'agent') === 'agent:v2' ? p : undefined;
    });
    expect(pod.metadata?.uid).toBe(uid);
    await settle(env.client, pod);
    expect(
      await eventually(async () => {
        const s = (await getSidecarSet(env.client, 'native')).status;
        return s?.updatedReadyPods === 1 ? s : undefined;
      }),
    ).toMatchObject({ matchedPods: 1, updatedPods: 1 });
  }, 60_000);
});

/**
 * Creates a pod while the pod webhook is out of the configuration, as when it is unreachable and
 * its failures ignored (chart value failurePolicy.pods Ignore): the pod has no sidecars.
 */
async function createWithoutPodWebhook(pod: Pod): Promise<Pod> {
  const configs = Resources.MutatingWebhookConfiguration;
  const name = 'kruise-mutating-webhook-configuration';
  const config = await env.client.get(configs, undefined, name);
  const webhooks = (config as { webhooks: { name: string }[] }).webhooks;
  await env.client.update(configs, { ...config, webhooks: webhooks.filter((w) => w.name !== 'mpod.kb.io') });
  try {
    return (await env.client.create(Resources.Pod, pod as KubeObject)) as Pod;
  } finally {
    const now = await env.client.get(configs, undefined, name);
    await env.client.update(configs, { ...now, webhooks });
  }
}

describe('pods missing their sidecars (beyond upstream)', () => {
  it('does not count pods that came into the selection after their creation', async () => {
    const ss = await createSidecarSet(env.client, sidecarSet('late'));
    await new Promise((r) => setTimeout(r, 1100)); // pods created in a later second
    const spec = { nodeName: 'n1', containers: [{ name: 'app', image: 'app:v1' }] };
    // relabelled into the selection: injection (at creation) rightly did not happen
    const relabelled = (await env.client.create(Resources.Pod, {
      metadata: { name: 'late-a', namespace: 'default', labels: { app: 'other' } },
      spec,
    })) as Pod;
    await settle(env.client, relabelled);
    await env.client.mergePatch(Resources.Pod, 'default', 'late-a', {
      metadata: { labels: { app: 'late' } },
    });
    // selected only once the SidecarSet's selector is widened (its webhook stamps when)
    await createWithoutPodWebhook({
      metadata: { name: 'late-b', namespace: 'default', labels: { tier: 'x' } },
      spec,
    });
    await new Promise((r) => setTimeout(r, 1100));
    await editSidecarSet(env.client, 'late', (s) => {
      s.spec!.selector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['late', 'x'] }] };
    });
    await env.client.mergePatch(Resources.Pod, 'default', 'late-b', { metadata: { labels: { app: 'x' } } });
    const stored = await getSidecarSet(env.client, 'late');
    expect(stored.metadata?.annotations?.['kruise.io/sidecarset-selection-changed-at']).toMatch(
      /^\d{4}-.*Z$/,
    );
    // a pod that really missed its sidecars is still counted, alone
    await new Promise((r) => setTimeout(r, 1100));
    await createWithoutPodWebhook({
      metadata: { name: 'late-c', namespace: 'default', labels: { app: 'late' } },
      spec,
    });
    const status = await eventually(async () => {
      const st = (await getSidecarSet(env.client, 'late')).status;
      return st?.missingSidecarPods === 1 ? st : undefined;
    });
    expect(status.missingSidecarPods).toBe(1);
    for (const n of ['late-a', 'late-b'])
      expect((await eventsOf(env.client, n, 'Pod')).filter((e) => e.startsWith('SidecarMissing'))).toEqual(
        [],
      );
    for (const n of ['late-a', 'late-b', 'late-c'])
      await env.client.delete(Resources.Pod, 'default', n, { gracePeriodSeconds: 0 });
    expect(ss.metadata?.name).toBe('late');
  }, 60_000);

  it('counts a selected pod created without injection and warns on the SidecarSet and the pod once', async () => {
    await createSidecarSet(env.client, sidecarSet('missing'));
    await new Promise((r) => setTimeout(r, 1100)); // created in a later second than the SidecarSet
    const pod = await createWithoutPodWebhook({
      metadata: { name: 'missing-a', namespace: 'default', labels: { app: 'missing' } },
      spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'app:v1' }] },
    });
    expect(pod.spec?.containers).toHaveLength(1);
    await settle(env.client, pod);
    const status = await eventually(async () => {
      const s = (await getSidecarSet(env.client, 'missing')).status;
      return s?.missingSidecarPods === 1 ? s : undefined;
    });
    expect(status.matchedPods).toBe(0);
    const onPod = await eventually(async () => {
      const e = (await eventsOf(env.client, 'missing-a', 'Pod')).filter((x) =>
        x.startsWith('SidecarMissing'),
      );
      return e.length ? e : undefined;
    });
    expect(onPod).toEqual([
      'SidecarMissing: pod was created without the sidecars of SidecarSet missing (the pod webhook was unreachable); recreate it to inject them',
    ]);
    expect(
      (await eventsOf(env.client, 'missing', 'SidecarSet')).filter((x) => x.startsWith('SidecarMissing')),
    ).toEqual([
      'SidecarMissing: pod default/missing-a was created without the sidecars of this SidecarSet (the pod webhook was unreachable); recreate it to inject them',
    ]);
    await env.client.delete(Resources.Pod, 'default', 'missing-a', { gracePeriodSeconds: 0 });
    await eventually(async () =>
      (await getSidecarSet(env.client, 'missing')).status?.missingSidecarPods === undefined
        ? true
        : undefined,
    );
  }, 60_000);
});
