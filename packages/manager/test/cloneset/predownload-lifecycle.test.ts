import type { CloneSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { preDownloadPlan } from '../../src/controllers/cloneset/predownload.ts';
import { LifecycleControl } from '../../src/workload/lifecycle/control.ts';
import type { NotReadyKey } from '../../src/workload/podreadiness/not-ready-keys.ts';
import { changedImages } from '../../src/workload/predownload.ts';
import { newRevision } from '../../src/workload/revision/index.ts';

const cs = (spec: Partial<CloneSet['spec']> = {}, annotations: Record<string, string> = {}): CloneSet => ({
  metadata: { name: 'web', namespace: 'ns', uid: 'uid-1', annotations },
  spec: {
    replicas: 5,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' }, annotations: { note: 'n' } },
      spec: { containers: [{ name: 'main', image: 'busybox:v1' }], imagePullSecrets: [{ name: 'reg' }] },
    },
    updateStrategy: { type: 'InPlaceIfPossible', partition: 0, maxUnavailable: 1 },
    ...spec,
  } as CloneSet['spec'],
});
const rev = (images: Record<string, string>) =>
  newRevision(
    {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web', namespace: 'ns', uid: 'uid-1' },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: Object.entries(images).map(([name, image]) => ({ name, image })) },
      },
    },
    1,
    0,
  );

describe('image pre-download plan', () => {
  const current = rev({ main: 'busybox:v1', side: 's:1' });
  const update = rev({ main: 'busybox:v2', side: 's:1', extra: 'e:1' });

  it('finds the images the update revision adds or changes', () => {
    expect(changedImages(current, update)).toEqual({ main: 'busybox:v2', extra: 'e:1' });
  });

  it('creates one ImagePullJob per changed image, owned by the CloneSet, for pods not yet updated', () => {
    const plan = preDownloadPlan(
      cs(
        {},
        {
          'apps.kruise.io/image-predownload-parallelism': '3',
          'apps.kruise.io/image-predownload-timeout-seconds': '120',
        },
      ),
      current,
      update,
      true,
    );
    expect(plan.action).toBe('create');
    if (plan.action !== 'create') return;
    const hash = update.metadata!.labels!['controller.kubernetes.io/hash']!;
    expect(plan.jobs.map((j) => j.metadata!.name)).toEqual([
      `${update.metadata!.name}-main`,
      `${update.metadata!.name}-extra`,
    ]);
    expect(plan.jobs[0]).toEqual({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'ImagePullJob',
      metadata: {
        namespace: 'ns',
        name: `${update.metadata!.name}-main`,
        ownerReferences: [
          {
            apiVersion: 'apps.kruise.io/v1alpha1',
            kind: 'CloneSet',
            name: 'web',
            uid: 'uid-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
        labels: { app: 'web', 'controller.kubernetes.io/hash': hash },
      },
      spec: {
        image: 'busybox:v2',
        pullSecrets: ['reg'],
        podSelector: {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'controller-revision-hash', operator: 'NotIn', values: [update.metadata!.name, hash] },
          ],
        },
        parallelism: 3,
        pullPolicy: { backoffLimit: 1, timeoutSeconds: 120 },
        completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 600 },
        sandboxConfig: {
          labels: { app: 'web', 'controller.kubernetes.io/hash': hash },
          annotations: { note: 'n' },
        },
      },
    });
  });

  it.each([
    ['ReCreate', cs({ updateStrategy: { type: 'ReCreate', maxUnavailable: 1 } }), true],
    ['3 replicas', cs({ replicas: 3 }), true],
    [
      'everything in one batch',
      cs({ updateStrategy: { type: 'InPlaceIfPossible', partition: 0, maxUnavailable: '100%' } }),
      true,
    ],
    ['a change that cannot be made in place', cs(), false],
  ])('is ignored for %s', (_what, set, inPlace) => {
    expect(preDownloadPlan(set, current, update, inPlace as boolean)).toEqual({ action: 'ignore' });
  });

  it('does nothing for a revision already marked', () => {
    const marked = structuredClone(update);
    marked.metadata!.labels!['apps.kruise.io/pre-predownload-created'] = 'true';
    expect(preDownloadPlan(cs(), current, marked, true)).toEqual({ action: 'none' });
  });
});

describe('lifecycle control', () => {
  const pod = (state: string, extra: Record<string, unknown> = {}): Pod =>
    ({
      metadata: {
        name: 'p',
        namespace: 'ns',
        resourceVersion: '7',
        labels: { 'lifecycle.apps.kruise.io/state': state },
        ...extra,
      },
      spec: { containers: [] },
    }) as Pod;
  const setup = () => {
    const calls: string[] = [];
    const patches: unknown[] = [];
    const control = new LifecycleControl(
      {
        patchPod: async (p, patch) => {
          patches.push(patch);
          return p;
        },
        addNotReadyKey: async (_p, k: NotReadyKey) => void calls.push(`add ${k.key}`),
        removeNotReadyKey: async (_p, k: NotReadyKey) => void calls.push(`remove ${k.key}`),
      },
      () => Date.parse('2026-01-01T00:00:00Z'),
    );
    return { control, calls, patches };
  };

  it('writes the state label and timestamp, holding the pod not-ready for a marking hook', async () => {
    const { control, calls, patches } = setup();
    expect(await control.updatePodLifecycle(pod('Normal'), 'PreparingDelete', true)).toBeDefined();
    expect(calls).toEqual(['add preDeleteHook']);
    expect(patches).toEqual([
      {
        metadata: {
          labels: { 'lifecycle.apps.kruise.io/state': 'PreparingDelete' },
          annotations: { 'lifecycle.apps.kruise.io/timestamp': '2026-01-01T00:00:00Z' },
        },
      },
    ]);
    expect(
      await control.updatePodLifecycle(pod('PreparingDelete'), 'PreparingDelete', false),
    ).toBeUndefined();
    await control.updatePodLifecycle(pod('Updating'), 'Updated', true);
    expect(calls).toEqual(['add preDeleteHook', 'remove preUpdateHook']);
  });

  it('puts the in-place hook’s labels and finalizers back when an Updated pod is updated again', async () => {
    const { control, calls, patches } = setup();
    await control.updatePodLifecycleWithHandler(
      pod('Updated', { finalizers: ['other'] }),
      'PreparingUpdate',
      {
        labelsHandler: { hook: 'true' },
        finalizersHandler: ['hold'],
        markPodNotReady: true,
      },
    );
    expect(calls).toEqual(['add preUpdateHook']);
    expect(patches).toEqual([
      {
        metadata: {
          labels: { hook: 'true', 'lifecycle.apps.kruise.io/state': 'PreparingUpdate' },
          annotations: { 'lifecycle.apps.kruise.io/timestamp': '2026-01-01T00:00:00Z' },
          finalizers: ['other', 'hold'],
          resourceVersion: '7',
        },
      },
    ]);
  });
});
