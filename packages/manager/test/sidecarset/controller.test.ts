import { SIDECARSET_CUSTOM_VERSION_LABEL } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_INPLACE_UPDATE_STATE_ANNOTATION,
  SIDECARSET_NAME_LABEL,
} from '../../src/workload/sidecarset/index.ts';
import {
  createInjectedPod,
  createSidecarSet,
  editSidecarSet,
  eventsOf,
  eventually,
  getSidecarSet,
  imageIdOf,
  imageIn,
  podsOf,
  type SidecarSetEnv,
  settle,
  sidecarSet,
  startSidecarSetEnv,
  unsettled,
} from './harness.ts';

/**
 * The SidecarSet controller against the control plane (injection and kubelet played by the test):
 * revisions and status, cold in-place upgrades within maxUnavailable, partition and selector
 * canaries, pods that cannot be upgraded in place.
 */
let env: SidecarSetEnv;
beforeAll(async () => {
  env = await startSidecarSetEnv();
  // The whitelist the SidecarSet webhook checks patchPodMetadata keys against.
  await env.client.create(Resources.ConfigMap, {
    metadata: { name: 'kruise-configuration', namespace: 'kruise-system' },
    data: {
      SidecarSet_PatchPodMetadata_WhiteList: JSON.stringify({
        rules: [{ allowedAnnotationKeyExprs: ['^example\\.com/'] }],
      }),
    },
  });
}, 60_000);
afterAll(() => env?.stop());

const revisionsOf = async (name: string) =>
  (
    await env.client.list(Resources.ControllerRevision, {
      namespace: 'kruise-system',
      labelSelector: `${SIDECARSET_NAME_LABEL}=${name}`,
    })
  ).items as unknown as ControllerRevision[];

const setImage = (name: string, image: string) =>
  editSidecarSet(env.client, name, (ss) => {
    ss.spec!.containers![0]!.image = image;
  });

/** Plays kubelet until every pod runs `image` in its sidecar, checking at each round that at most `max` are mid-update. */
async function rollOut(name: string, image: string, max: number): Promise<number> {
  let peak = 0;
  await eventually(
    async () => {
      const pods = await podsOf(env.client, name);
      const inFlight = pods.filter(unsettled);
      peak = Math.max(peak, inFlight.length);
      for (const p of inFlight) await settle(env.client, p);
      return pods.every((p) => imageIn(p, 'sidecar') === image && !unsettled(p)) || undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: `pods of ${name} to run ${image}` },
  );
  expect(peak).toBeLessThanOrEqual(max);
  return peak;
}

describe('revisions and status', () => {
  it('records a revision in the Kruise namespace and counts matched, updated and ready pods', async () => {
    const ss = await createSidecarSet(env.client, sidecarSet('status', { customVersion: 'v1' }));
    for (const n of ['status-a', 'status-b']) await createInjectedPod(env.client, ss, n);
    const status = await eventually(async () => {
      const s = (await getSidecarSet(env.client, 'status')).status;
      return s?.matchedPods === 2 && s.readyPods === 2 ? s : undefined;
    });
    expect(status).toMatchObject({
      matchedPods: 2,
      updatedPods: 2,
      readyPods: 2,
      updatedReadyPods: 2,
      collisionCount: 0,
    });
    expect(status.observedGeneration).toBe((await getSidecarSet(env.client, 'status')).metadata?.generation);
    const revisions = await revisionsOf('status');
    expect(revisions.map((r) => r.metadata?.name)).toEqual([status.latestRevision]);
    expect(revisions[0]!.metadata?.labels?.[SIDECARSET_CUSTOM_VERSION_LABEL]).toBe('v1');
    expect(revisions[0]!.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION]).toBe(
      ss.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION],
    );
    expect(
      (revisions[0]!.data as { spec: { containers: { image: string }[] } }).spec.containers[0]!.image,
    ).toBe('sidecar:v1');
  }, 60_000);

  it('truncates history beyond revisionHistoryLimit but keeps revisions pods still use', async () => {
    const ss = await createSidecarSet(
      env.client,
      sidecarSet('history', { revisionHistoryLimit: 1, updateStrategy: { type: 'NotUpdate' } }),
    );
    const first = await eventually(
      async () => (await getSidecarSet(env.client, 'history')).status?.latestRevision,
    );
    await createInjectedPod(env.client, ss, 'history-a');
    for (const image of ['sidecar:v2', 'sidecar:v3', 'sidecar:v4']) {
      await setImage('history', image);
      await eventually(async () => {
        const s = await getSidecarSet(env.client, 'history');
        return s.status?.observedGeneration === s.metadata?.generation ? true : undefined;
      });
    }
    const latest = (await getSidecarSet(env.client, 'history')).status?.latestRevision;
    const names = await eventually(async () => {
      const r = await revisionsOf('history');
      return r.length === 2 ? r.map((x) => x.metadata?.name).sort() : undefined;
    });
    expect(names).toEqual([first, latest].sort());
  }, 60_000);
});

describe('cold upgrade', () => {
  it('swaps only the sidecar image in place, one pod at a time (maxUnavailable 1), re-applying patchPodMetadata', async () => {
    const ss = await createSidecarSet(env.client, sidecarSet('cold'));
    for (const n of ['cold-a', 'cold-b', 'cold-c']) await createInjectedPod(env.client, ss, n);
    const before = await podsOf(env.client, 'cold');
    await eventually(async () =>
      (await getSidecarSet(env.client, 'cold')).status?.readyPods === 3 ? true : undefined,
    );
    const updated = await editSidecarSet(env.client, 'cold', (s) => {
      s.spec!.containers![0]!.image = 'sidecar:v2';
      s.spec!.patchPodMetadata = [
        { annotations: { 'example.com/sidecar': 'v2' }, patchPolicy: 'Overwrite' },
        { annotations: { 'example.com/config': '{"level":"debug"}' }, patchPolicy: 'MergePatchJson' },
      ];
    });
    expect(await rollOut('cold', 'sidecar:v2', 1)).toBe(1);
    const after = await podsOf(env.client, 'cold');
    for (const [i, p] of after.entries()) {
      expect(p.metadata?.uid).toBe(before[i]!.metadata?.uid);
      expect(imageIn(p, 'app')).toBe('app:v1');
      expect(p.metadata?.annotations).toMatchObject({
        'example.com/sidecar': 'v2',
        'example.com/config': '{"level":"debug"}',
      });
      const hash = JSON.parse(p.metadata!.annotations![SIDECARSET_HASH_ANNOTATION]!);
      expect(hash.cold.hash).toBe(updated.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION]);
      const state = JSON.parse(p.metadata!.annotations![SIDECARSET_INPLACE_UPDATE_STATE_ANNOTATION]!);
      expect(state.cold.lastContainerStatuses).toEqual({ sidecar: { imageID: imageIdOf('sidecar:v1') } });
      expect(p.status?.conditions?.find((c) => c.type === 'SidecarSetUpgradable')).toMatchObject({
        status: 'True',
        reason: 'AllSidecarsetUpgradable',
        message: '{"cold":true}',
      });
    }
    const status = await eventually(async () => {
      const s = (await getSidecarSet(env.client, 'cold')).status;
      return s?.updatedReadyPods === 3 ? s : undefined;
    });
    expect(status).toMatchObject({ matchedPods: 3, updatedPods: 3, readyPods: 3 });
  }, 90_000);

  it('keeps `partition` pods at the old image and rolls only the pods the selector picks', async () => {
    const ss = await createSidecarSet(
      env.client,
      sidecarSet('canary', { updateStrategy: { partition: 2, maxUnavailable: 3 } }),
    );
    for (const n of ['canary-a', 'canary-b', 'canary-c'])
      await createInjectedPod(env.client, ss, n, { zone: n === 'canary-c' ? 'x' : 'y' });
    await setImage('canary', 'sidecar:v2');
    const images = async () => (await podsOf(env.client, 'canary')).map((p) => imageIn(p, 'sidecar'));
    await eventually(async () =>
      (await images()).filter((i) => i === 'sidecar:v2').length === 1 ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect((await images()).filter((i) => i === 'sidecar:v2')).toHaveLength(1);
    for (const p of await podsOf(env.client, 'canary')) await settle(env.client, p);
    await editSidecarSet(env.client, 'canary', (s) => {
      s.spec!.updateStrategy = { selector: { matchLabels: { zone: 'x' } }, maxUnavailable: 3 };
      s.spec!.containers![0]!.image = 'sidecar:v3';
    });
    const pods = await eventually(async () => {
      const list = await podsOf(env.client, 'canary');
      return imageIn(list.find((p) => p.metadata?.name === 'canary-c')!, 'sidecar') === 'sidecar:v3'
        ? list
        : undefined;
    });
    await new Promise((r) => setTimeout(r, 1500));
    const now = await podsOf(env.client, 'canary');
    expect(now.filter((p) => imageIn(p, 'sidecar') === 'sidecar:v3').map((p) => p.metadata?.name)).toEqual([
      'canary-c',
    ]);
    expect(pods).toHaveLength(3);
  }, 60_000);

  it('reports pods whose sidecars changed beyond the image as not upgradable', async () => {
    const ss = await createSidecarSet(env.client, sidecarSet('immutable'));
    await createInjectedPod(env.client, ss, 'immutable-a');
    await editSidecarSet(env.client, 'immutable', (s) => {
      s.spec!.containers![0] = { name: 'sidecar', image: 'sidecar:v2', env: [{ name: 'MODE', value: 'x' }] };
    });
    const condition = await eventually(async () => {
      const pod = (await podsOf(env.client, 'immutable'))[0] as Pod;
      return pod.status?.conditions?.find((c) => c.type === 'SidecarSetUpgradable' && c.status === 'False');
    });
    expect(condition).toMatchObject({ reason: 'UpdateImmutableField', message: '{"immutable":false}' });
    expect(imageIn((await podsOf(env.client, 'immutable'))[0]!, 'sidecar')).toBe('sidecar:v1');
    expect(
      await eventually(async () =>
        (await eventsOf(env.client, 'immutable', 'SidecarSet')).find((e) =>
          e.startsWith('NotUpgradablePods'),
        ),
      ),
    ).toBe(
      'NotUpgradablePods: SidecarSet in-place update detected 1 not upgradable pod(s) in this round, will skip them.',
    );
  }, 60_000);
});
