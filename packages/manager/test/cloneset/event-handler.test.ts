import { type CloneSet, KruiseResources } from '@kruise/api';
import { kubeletContainerHash } from '@kruise/kube-compat';
import { type KubeClient, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { atRest } from '../../../../test/support/reconciled.ts';
import { ignorePodUpdateEvent } from '../../src/controllers/cloneset/pod-event-filter.ts';
import { trimmedPods } from '../../src/informers.ts';
import type { InPlaceUpdateOptions } from '../../src/workload/inplaceupdate/control.ts';
import { cloneSetRevisionAdapter } from '../../src/workload/revision/pod-revision.ts';
import {
  available,
  type CloneSetEnv,
  cloneSet,
  eventually,
  image,
  podsOf,
  setImage,
  statusWhen,
  useCloneSetEnv,
} from './harness.ts';

const opts = (verticalScaling = false): InPlaceUpdateOptions => ({
  gates: { verticalScaling },
  kubeletHash: kubeletContainerHash,
  revisions: cloneSetRevisionAdapter(false),
});
const pod = (p: {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  conditions?: { type: string; status: string }[];
}): Pod => ({
  metadata: { labels: p.labels, annotations: p.annotations, finalizers: p.finalizers },
  spec: { containers: [{ name: 'main', image: 'busybox:v2' }] },
  status: { conditions: p.conditions },
});
const updating = (inPlaceReady: string) =>
  pod({
    labels: { 'lifecycle.apps.kruise.io/state': 'Updating' },
    annotations: { 'apps.kruise.io/inplace-update-state': '{}' },
    conditions: [{ type: 'InPlaceUpdateReady', status: inPlaceReady }],
  });

describe('CloneSetEventHandlerOptimization: which pod updates are left out (upstream IgnorePodUpdateEvent)', () => {
  const cs: CloneSet = { spec: { selector: {}, template: {} } } as unknown as CloneSet;
  it('leaves out an update of a pod whose in-place update is done and InPlaceUpdateReady True', () => {
    expect(ignorePodUpdateEvent(cs, pod({}), updating('True'), opts())).toBe(true);
  });
  it('keeps it while InPlaceUpdateReady is not True yet (the reconcile sets it), or with vertical scaling on', () => {
    expect(ignorePodUpdateEvent(cs, pod({}), updating('False'), opts())).toBe(false);
    expect(ignorePodUpdateEvent(cs, pod({}), updating('True'), opts(true))).toBe(false);
  });
  it('keeps a change of readiness or activity', () => {
    const ready = pod({ conditions: [{ type: 'Ready', status: 'True' }] });
    expect(ignorePodUpdateEvent(cs, pod({}), ready, opts())).toBe(false);
    const gone = { ...pod({}), status: { phase: 'Succeeded' } } as Pod;
    expect(ignorePodUpdateEvent(cs, pod({}), gone, opts())).toBe(false);
  });
  it("keeps a lifecycle hook's finalizer coming or going, and only that finalizer", () => {
    const hooked = {
      spec: { ...cs.spec, lifecycle: { preNormal: { finalizersHandler: ['example.com/hook'] } } },
    } as CloneSet;
    const state = { 'lifecycle.apps.kruise.io/state': 'PreparingNormal' };
    const without = pod({ labels: state });
    expect(ignorePodUpdateEvent(hooked, without, without, opts())).toBe(true);
    expect(
      ignorePodUpdateEvent(hooked, without, pod({ labels: state, finalizers: ['example.com/hook'] }), opts()),
    ).toBe(false);
    expect(
      ignorePodUpdateEvent(
        hooked,
        without,
        pod({ labels: state, finalizers: ['example.com/other'] }),
        opts(),
      ),
    ).toBe(true);
  });
});

/** Reconciles of one CloneSet so far. */
const count = (env: CloneSetEnv, name: string) => env.reconciles.get(`default/${name}`) ?? 0;

/** Waits until the CloneSet controller is at rest on the pods of `owner` and `marker`. */
const settle = (env: CloneSetEnv) =>
  atRest(env.app.controllers.get('cloneset')!, {
    informer: trimmedPods(env.app.manager),
    read: async () => [...(await podsOf(env.client, 'owner')), ...(await podsOf(env.client, 'marker'))],
  });

/**
 * Reconciles of `name` caused by `change` to its first pod. A Ready flip of a pod of `marker`
 * follows it on the same watch, so once `marker` reconciled, the change was handled (queued or not).
 */
async function reconcilesAfter(
  env: CloneSetEnv,
  name: string,
  marker: string,
  change: (client: KubeClient, pod: string) => Promise<unknown>,
): Promise<number> {
  await settle(env);
  const before = count(env, name);
  const markerBefore = count(env, marker);
  const [first] = await podsOf(env.client, name);
  await change(env.client, first!.metadata!.name!);
  const [flag] = await podsOf(env.client, marker);
  const wasReady = flag!.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  await setReady(env.client, flag!.metadata!.name!, wasReady ? 'False' : 'True');
  await eventually(() => count(env, marker) > markerBefore, 30_000);
  await settle(env);
  return count(env, name) - before;
}

/** Sets a pod's Ready condition as kubelet does (a strategic merge patch: the other conditions stay). */
const setReady = (client: KubeClient, name: string, status: string) =>
  client.request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, {
    body: {
      status: { conditions: [{ type: 'Ready', status, lastTransitionTime: new Date().toISOString() }] },
    },
    contentType: 'application/strategic-merge-patch+json',
  });
/** What kruise-daemon's containermeta writes: an annotation only. */
const annotate = (client: KubeClient, name: string) =>
  client.mergePatch(Resources.Pod, 'default', name, {
    metadata: { annotations: { 'example.com/seen': String(Date.now()) } },
  });

describe.each([
  { gate: 'on', flags: ['--feature-gates=CloneSetEventHandlerOptimization=true'], annotation: 0 },
  { gate: 'off (upstream default)', flags: [], annotation: 1 },
])('reconciles per pod update with CloneSetEventHandlerOptimization $gate', ({ flags, annotation }) => {
  const env = useCloneSetEnv(flags);
  beforeAll(async () => {
    for (const name of ['owner', 'marker']) {
      await env.client.create(
        KruiseResources.CloneSet,
        cloneSet(name, { replicas: 2, updateStrategy: { type: 'InPlaceIfPossible' } }),
      );
      await available(env.client, name, 2);
    }
  });

  it(`an annotation-only change of a settled pod queues its CloneSet ${annotation} time(s)`, async () => {
    expect(await reconcilesAfter(env, 'owner', 'marker', annotate)).toBe(annotation);
  });

  it('a Ready flip queues the owning CloneSet exactly once and no other', async () => {
    const marker = count(env, 'marker');
    expect(await reconcilesAfter(env, 'owner', 'marker', (c, p) => setReady(c, p, 'False'))).toBe(1);
    // the marker's own flip is its one reconcile
    expect(count(env, 'marker') - marker).toBe(1);
  });

  it('an in-place update still completes (the event that finishes the containers is kept)', async () => {
    // every pod Ready again first (the fake kubelet's status write would race the update's)
    await available(env.client, 'owner', 2);
    const uids = (await podsOf(env.client, 'owner')).map((p) => p.metadata!.uid).sort();
    await setImage(env.client, 'owner', 'busybox:v2');
    await statusWhen(env.client, 'owner', (s) => s.updatedAvailableReplicas === 2 && s.updatedReplicas === 2);
    const pods = await podsOf(env.client, 'owner');
    expect(pods.map((p) => p.metadata!.uid).sort()).toEqual(uids);
    for (const p of pods) {
      expect(image(p)).toBe('busybox:v2');
      expect(p.status?.conditions?.find((c) => c.type === 'InPlaceUpdateReady')?.status).toBe('True');
    }
  });
});
