import { expectedEnvFromMetadataHash } from '@kruise/api';
import { deepHashJsonBytes } from '@kruise/kube-compat';
import { ConflictError } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Container, Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  calculateInPlaceUpdateSpec,
  containersNotUpdated,
  containersOfBatch,
  createPatch,
  INPLACE_UPDATE_GRACE_KEY,
  INPLACE_UPDATE_STATE_KEY,
  InPlaceUpdateControl,
  type InPlaceUpdateOptions,
  type InPlaceUpdateState,
  type PodAccess,
  patchUpdateSpecToPod,
  podUpdateNotCompleted,
  readState,
  serializeState,
  serializeUpdateSpec,
} from '../../src/workload/inplaceupdate/index.ts';
import { barrierEnv } from '../../src/workload/launch-priority.ts';
import { newRevision } from '../../src/workload/revision/index.ts';
import { cloneSetRevisionAdapter } from '../../src/workload/revision/pod-revision.ts';

const GATES = { envFromMetadata: true };

function revision(template: PodTemplateSpec, vct?: any): ControllerRevision {
  return newRevision(
    {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'cs', namespace: 'ns', uid: 'u' },
      template,
      ...(vct ? { volumeClaimTemplates: vct } : {}),
    },
    1,
    0,
  );
}

const template = (
  containers: Container[],
  labels: Record<string, string> = { app: 'a' },
  annotations?: Record<string, string>,
): PodTemplateSpec => ({
  metadata: { labels, ...(annotations ? { annotations } : {}) },
  spec: { containers },
});

const envFromLabel = (name: string, key: string) => ({
  name,
  valueFrom: { fieldRef: { fieldPath: `metadata.labels['${key}']` } },
});

describe('in-place-ability', () => {
  const base = [
    { name: 'main', image: 'busybox:v1', env: [envFromLabel('VERSION', 'version')] },
    { name: 'side', image: 'side:v1' },
  ];

  it('accepts image changes, by the old template container name', () => {
    const spec = calculateInPlaceUpdateSpec(
      revision(template(base)),
      revision(template([{ ...base[0]!, image: 'busybox:v2' }, base[1]!])),
      { gates: GATES },
    );
    expect(spec?.containerImages).toEqual({ main: 'busybox:v2' });
    expect(spec?.updateEnvFromMetadata).toBeUndefined();
    expect(spec?.metaDataPatch).toBeUndefined();
  });

  it('accepts metadata-only changes as a metadata patch that restarts nothing', () => {
    const spec = calculateInPlaceUpdateSpec(
      revision(template(base, { app: 'a', team: 'x' })),
      revision(template(base, { app: 'a', team: 'y', extra: 'e' }, { note: 'n' })),
      { gates: GATES },
    );
    expect(spec?.containerImages).toEqual({});
    expect(spec?.containerRefMetadata).toEqual({});
    expect(JSON.parse(spec!.metaDataPatch!)).toEqual({
      metadata: { labels: { team: 'y', extra: 'e' }, annotations: { note: 'n' } },
    });
  });

  it('records a label read by an env var as that container’s metadata and leaves it out of the metadata patch', () => {
    const spec = calculateInPlaceUpdateSpec(
      revision(template(base, { app: 'a', version: '1' })),
      revision(
        template([{ ...base[0]!, image: 'busybox:v2' }, base[1]!], { app: 'a', version: '2', other: 'o' }),
      ),
      { gates: GATES },
    );
    expect(spec?.updateEnvFromMetadata).toBe(true);
    expect(spec?.containerRefMetadata).toEqual({ main: { labels: { version: '2' } } });
    expect(JSON.parse(spec!.metaDataPatch!)).toEqual({ metadata: { labels: { other: 'o' } } });
    const off = calculateInPlaceUpdateSpec(
      revision(template(base, { app: 'a', version: '1' })),
      revision(template(base, { app: 'a', version: '2' })),
      { gates: { envFromMetadata: false } },
    );
    expect(off?.updateEnvFromMetadata).toBeUndefined();
    expect(JSON.parse(off!.metaDataPatch!)).toEqual({ metadata: { labels: { version: '2' } } });
  });

  it.each([
    ['an env change', [{ ...base[0]!, env: [{ name: 'X', value: '1' }] }, base[1]!]],
    ['a new container', [...base, { name: 'third', image: 'x' }]],
    ['a removed container', [base[0]!]],
    ['a command change', [{ ...base[0]!, command: ['sh'] }, base[1]!]],
    [
      'a resources change without the gate',
      [{ ...base[0]!, resources: { requests: { cpu: '1' } } }, base[1]!],
    ],
  ])('refuses %s', (_what, containers) => {
    expect(
      calculateInPlaceUpdateSpec(revision(template(base)), revision(template(containers as Container[])), {
        gates: GATES,
      }),
    ).toBeUndefined();
  });

  it('accepts cpu/memory value changes with InPlaceWorkloadVerticalScaling unless the QoS class changes', () => {
    const withRes = (cpu: string, limit?: string) => [
      {
        name: 'main',
        image: 'i',
        resources: { requests: { cpu }, ...(limit ? { limits: { cpu: limit } } : {}) },
      },
    ];
    const gates = { envFromMetadata: true, verticalScaling: true };
    expect(
      calculateInPlaceUpdateSpec(revision(template(withRes('1'))), revision(template(withRes('2'))), {
        gates,
      })?.containerResources,
    ).toEqual({ main: { limits: {}, requests: { cpu: '2' } } });
    // adding a limit is an add, not a replace
    expect(
      calculateInPlaceUpdateSpec(revision(template(withRes('1'))), revision(template(withRes('1', '2'))), {
        gates,
      }),
    ).toBeUndefined();
  });

  it('recreates on a volumeClaimTemplates change only with the gate, and never for InPlaceOnly', () => {
    const a = revision(template(base), [
      { metadata: { name: 'd' }, spec: { resources: { requests: { storage: '1Gi' } } } },
    ]);
    const b = revision(template([{ ...base[0]!, image: 'busybox:v2' }, base[1]!]), [
      { metadata: { name: 'd' }, spec: { resources: { requests: { storage: '2Gi' } } } },
    ]);
    expect(calculateInPlaceUpdateSpec(a, b, { gates: GATES })).toBeDefined();
    expect(
      calculateInPlaceUpdateSpec(a, b, { gates: { ...GATES, recreateOnVolumeClaimTemplateChange: true } }),
    ).toBeUndefined();
    expect(
      calculateInPlaceUpdateSpec(a, b, {
        gates: { ...GATES, recreateOnVolumeClaimTemplateChange: true },
        ignoreVolumeClaimTemplatesHashDiff: true,
      }),
    ).toBeDefined();
  });

  it('diffs arrays of objects index by index and flat arrays by edit distance', () => {
    expect(createPatch({ a: [{ x: { y: 1 } }] }, { a: [{ x: { y: 2 } }] })).toEqual([
      { op: 'replace', path: '/a/0/x/y', value: 2 },
    ]);
    expect(createPatch({ a: ['x', 'y'] }, { a: ['x', 'z'] })).toEqual([
      { op: 'replace', path: '/a/1', value: 'z' },
    ]);
    expect(createPatch({ m: { 'a/b': '1' } }, { m: {} })).toEqual([{ op: 'remove', path: '/m/a~1b' }]);
  });
});

const statusOf = (name: string, imageID: string, image: string, extra: object = {}) => ({
  name,
  imageID,
  image,
  ready: true,
  restartCount: 0,
  containerID: `containerd://${name}-1`,
  ...extra,
});

function runningPod(containers: Container[], extra: Partial<Pod> = {}): Pod {
  return {
    metadata: {
      name: 'cs-abcde',
      namespace: 'ns',
      labels: { app: 'a', 'controller-revision-hash': 'cs-old' },
      annotations: {},
    },
    spec: { containers, readinessGates: [{ conditionType: 'InPlaceUpdateReady' }] },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'InPlaceUpdateReady', status: 'True' },
        { type: 'ContainersReady', status: 'True' },
        { type: 'Ready', status: 'True' },
      ],
      containerStatuses: containers.map((c) => statusOf(c.name, `sha256:${c.name}-v1`, c.image!)),
    },
    ...extra,
  } as Pod;
}

describe('container batches by launch priority', () => {
  const withPriority = (name: string, p: number): Container => ({
    name,
    image: `${name}:v1`,
    env: [barrierEnv(p, 'cs-abcde')],
  });

  it('updates unprioritised containers and the highest priority first, the rest in later batches', () => {
    const pod = runningPod([withPriority('a', 10), withPriority('b', 0), { name: 'c', image: 'c:v1' }]);
    const spec = { revision: 'cs-new', containerImages: { a: 'a:v2', b: 'b:v2', c: 'c:v2' } };
    expect([...containersOfBatch(pod, spec)].sort()).toEqual(['a', 'c']);
    const state: InPlaceUpdateState = { revision: 'cs-new', updateTimestamp: '2026-01-01T00:00:00Z' };
    const next = patchUpdateSpecToPod(pod, spec, state, { now: Date.parse('2026-01-01T00:00:01Z') });
    expect(next.spec!.containers.map((c) => c.image)).toEqual(['a:v2', 'b:v1', 'c:v2']);
    const written = readState(next)!;
    expect(written.nextContainerImages).toEqual({ b: 'b:v2' });
    expect(written.preCheckBeforeNext).toEqual({ containersRequiredReady: ['a', 'c'] });
    expect(written.lastContainerStatuses).toEqual({
      a: { imageID: 'sha256:a-v1' },
      c: { imageID: 'sha256:c-v1' },
    });
    expect(written.containerBatchesRecord).toEqual([
      { timestamp: '2026-01-01T00:00:01Z', containers: ['a', 'c'] },
    ]);
  });

  it('pulls in a lower-priority container that reads the same label', () => {
    const a = { ...withPriority('a', 10), env: [barrierEnv(10, 'p'), envFromLabel('V', 'k')] };
    const b = { ...withPriority('b', 0), env: [barrierEnv(0, 'p'), envFromLabel('V', 'k')] };
    const pod = runningPod([a, b]);
    const spec = {
      revision: 'r',
      containerRefMetadata: { a: { labels: { k: '2' } }, b: { labels: { k: '2' } } },
    };
    expect([...containersOfBatch(pod, spec)].sort()).toEqual(['a', 'b']);
  });
});

describe('state annotations', () => {
  it('are written with upstream’s field names and order', () => {
    expect(
      serializeState({
        revision: 'cs-new',
        updateTimestamp: '2026-01-01T00:00:00Z',
        updateImages: true,
        nextContainerRefMetadata: { b: { labels: { k: 'v' } } },
        preCheckBeforeNext: { containersRequiredReady: ['a'] },
      }),
    ).toBe(
      '{"revision":"cs-new","updateTimestamp":"2026-01-01T00:00:00Z","lastContainerStatuses":null,"updateImages":true,"nextContainerRefMetadata":{"b":{"creationTimestamp":null,"labels":{"k":"v"}}},"preCheckBeforeNext":{"containersRequiredReady":["a"]}}',
    );
    expect(
      serializeUpdateSpec({
        revision: 'r',
        containerImages: { a: 'x' },
        metaDataPatch: '{}',
        graceSeconds: 5,
      }),
    ).toBe(
      `{"revision":"r","containerImages":{"a":"x"},"metaDataPatch":"${Buffer.from('{}').toString('base64')}","graceSeconds":5}`,
    );
  });
});

describe('completion', () => {
  const kubeletHash = (c: Container) => deepHashJsonBytes(`${c.name}/${c.image}`);
  const opts = { kubeletHash };
  const state = (extra: Partial<InPlaceUpdateState> = {}): InPlaceUpdateState => ({
    revision: 'cs-new',
    updateTimestamp: '2026-01-01T00:00:00Z',
    lastContainerStatuses: { main: { imageID: 'sha256:main-v1' } },
    ...extra,
  });

  it('waits while the imageID and the reported image name are unchanged', () => {
    const pod = runningPod([{ name: 'main', image: 'busybox:v2' }]);
    (pod.status!.containerStatuses![0] as any).image = 'busybox:v1';
    expect(containersNotUpdated(pod, state(), opts)).toBe('container main imageID not changed');
  });

  it('completes on a new imageID, or on a new tag of the same digest once kubelet reports the new name', () => {
    const pod = runningPod([{ name: 'main', image: 'busybox:v2' }]);
    (pod.status!.containerStatuses![0] as any).imageID = 'sha256:other';
    expect(containersNotUpdated(pod, state(), opts)).toBeUndefined();
    const retag = runningPod([{ name: 'main', image: 'busybox:v2' }]);
    (retag.status!.containerStatuses![0] as any).image = 'busybox:v2';
    expect(containersNotUpdated(retag, state(), opts)).toBeUndefined();
    const untagged = runningPod([{ name: 'main', image: 'busybox' }]);
    (untagged.status!.containerStatuses![0] as any).image = 'busybox:v1';
    expect(containersNotUpdated(untagged, state(), opts)).toBe('container main imageID not changed');
    (untagged.status!.containerStatuses![0] as any).image = 'busybox:latest';
    expect(containersNotUpdated(untagged, state(), opts)).toBeUndefined();
  });

  it('completes when runtime-containers-meta reports kubelet’s hash of the new spec for the same container', () => {
    const c = { name: 'main', image: 'busybox:v2' };
    const pod = runningPod([c]);
    pod.metadata!.annotations!['apps.kruise.io/runtime-containers-meta'] = JSON.stringify({
      containers: [
        {
          name: 'main',
          containerID: 'containerd://main-1',
          restartCount: 1,
          hashes: { plainHash: kubeletHash(c) },
        },
      ],
    });
    expect(containersNotUpdated(pod, state(), opts)).toBeUndefined();
  });

  it('for env-from-metadata waits until the daemon reports the expected env hash', () => {
    const c = { name: 'main', image: 'busybox:v1', env: [envFromLabel('V', 'version')] };
    const pod = runningPod([c]);
    pod.metadata!.labels!.version = '2';
    const meta = (h: number) =>
      JSON.stringify({
        containers: [
          {
            name: 'main',
            containerID: 'containerd://main-1',
            restartCount: 1,
            hashes: { plainHash: 1, extractedEnvFromMetadataHash: h },
          },
        ],
      });
    const s = state({ updateEnvFromMetadata: true, lastContainerStatuses: null });
    expect(containersNotUpdated(pod, s, opts)).toBe(
      'waiting for all containers hash consistent, but runtime-container-meta not found',
    );
    pod.metadata!.annotations!['apps.kruise.io/runtime-containers-meta'] = meta(123);
    expect(containersNotUpdated(pod, s, opts)).toBe('waiting for all containers hash consistent');
    pod.metadata!.annotations!['apps.kruise.io/runtime-containers-meta'] = meta(
      expectedEnvFromMetadataHash(c, pod.metadata!),
    );
    expect(containersNotUpdated(pod, s, opts)).toBeUndefined();
  });

  it('is not complete in grace or with batches left', () => {
    const pod = runningPod([{ name: 'main', image: 'v2' }]);
    pod.metadata!.annotations![INPLACE_UPDATE_GRACE_KEY] = '{}';
    expect(podUpdateNotCompleted(pod, opts)).toBe('still in grace period of in-place update');
    delete pod.metadata!.annotations![INPLACE_UPDATE_GRACE_KEY];
    pod.metadata!.annotations![INPLACE_UPDATE_STATE_KEY] = serializeState(
      state({ nextContainerImages: { b: 'x' } }),
    );
    expect(podUpdateNotCompleted(pod, opts)).toBe('existing containers to in-place update in next batches');
  });
});

/** One pod kept in memory; each write bumps its resourceVersion and is recorded. */
function podStore(initial: Pod) {
  let stored = structuredClone(initial);
  (stored.metadata as { resourceVersion?: string }).resourceVersion = '1';
  const writes: string[] = [];
  const bump = (p: Pod) => {
    stored = structuredClone(p);
    (stored.metadata as { resourceVersion?: string }).resourceVersion = String(
      Number(stored.metadata!.resourceVersion ?? 0) + 1,
    );
    return structuredClone(stored);
  };
  // as kube-apiserver 1.33: a stale resourceVersion conflicts, resources change only through pods/resize
  const conflict = () =>
    new ConflictError(409, { reason: 'Conflict', message: 'the object has been modified' });
  const sameResources = (p: Pod) =>
    JSON.stringify(p.spec?.containers?.map((c) => c.resources)) ===
    JSON.stringify(stored.spec?.containers?.map((c) => c.resources));
  const access: PodAccess = {
    get: async () => structuredClone(stored),
    update: async (p) => {
      writes.push('update');
      if (p.metadata?.resourceVersion && p.metadata.resourceVersion !== stored.metadata?.resourceVersion)
        throw conflict();
      if (!sameResources(p)) throw new Error('pod updates may not change fields other than …');
      return bump({ ...p, status: stored.status } as Pod);
    },
    updateStatus: async (p) => {
      writes.push('status');
      return bump({ ...stored, status: p.status } as Pod);
    },
    resize: async (_p, resources) => {
      writes.push(`resize ${JSON.stringify(resources)}`);
      const next = structuredClone(stored);
      for (const c of next.spec!.containers)
        if (resources[c.name])
          c.resources = {
            limits: { ...c.resources?.limits, ...resources[c.name]!.limits },
            requests: { ...c.resources?.requests, ...resources[c.name]!.requests },
          };
      return bump(next);
    },
  };
  return { access, writes, current: () => stored };
}

const inPlaceReady = (pod: Pod) =>
  pod.status?.conditions?.find((c) => c.type === 'InPlaceUpdateReady')?.status;

/** `podStore` whose writes fail with 409 on a stale resourceVersion, counting reads. */
function checkedPodStore(initial: Pod) {
  const store = podStore(initial);
  let gets = 0;
  const check = (p: Pod) => {
    if (p.metadata?.resourceVersion !== store.current().metadata?.resourceVersion)
      throw new ConflictError(409, { reason: 'Conflict', message: 'the object has been modified' });
  };
  const access: PodAccess = {
    get: async (ns, name) => {
      gets++;
      return store.access.get(ns, name);
    },
    update: async (p) => {
      check(p);
      return store.access.update(p);
    },
    updateStatus: async (p) => {
      check(p);
      return store.access.updateStatus(p);
    },
    resize: (p, resources) => store.access.resize(p, resources),
  };
  return { ...store, access, gets: () => gets };
}

describe('in-place update flow', () => {
  const oldRev = revision(template([{ name: 'main', image: 'busybox:v1' }]));
  const newRev = revision(template([{ name: 'main', image: 'busybox:v2' }]));
  const opts = (extra: Partial<InPlaceUpdateOptions> = {}): InPlaceUpdateOptions => ({
    gates: GATES,
    kubeletHash: () => 0,
    revisions: cloneSetRevisionAdapter(false),
    ...extra,
  });

  it('vertical scaling: cpu through pods/resize first, then the rest on the resized pod; Ready stays (NotRequired)', async () => {
    const sized = (cpu: string) => [
      {
        name: 'main',
        image: 'busybox:v1',
        resources: { requests: { cpu }, limits: { cpu } },
        resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
      },
    ];
    const store = podStore(runningPod(sized('1')));
    const control = new InPlaceUpdateControl(store.access, () => Date.parse('2026-01-01T00:00:00Z'));
    const to = revision(template(sized('2')));
    const vertical = opts({ gates: { ...GATES, verticalScaling: true } });
    const res = await control.update(store.current(), revision(template(sized('1'))), to, vertical);
    expect(res.inPlace).toBe(true);
    // no not-ready mark; the first update conflicts with the resize and is made again on the resized pod
    expect(store.writes).toEqual([
      'resize {"main":{"limits":{"cpu":"2"},"requests":{"cpu":"2"}}}',
      'update',
      'update',
    ]);
    const pod = store.current();
    expect(pod.spec!.containers[0]!.resources).toEqual({ limits: { cpu: '2' }, requests: { cpu: '2' } });
    expect(pod.metadata!.labels!['controller-revision-hash']).toBe(to.metadata!.name);
    expect(JSON.parse(pod.metadata!.annotations![INPLACE_UPDATE_STATE_KEY]!)).toMatchObject({
      revision: to.metadata!.name,
      updateResources: true,
    });
    expect(pod.status!.conditions!.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('marks the pod not-ready, then writes the new image, revision labels and state in one update', async () => {
    const store = podStore(runningPod([{ name: 'main', image: 'busybox:v1' }]));
    const control = new InPlaceUpdateControl(store.access, () => Date.parse('2026-01-01T00:00:00Z'));
    const res = await control.update(store.current(), oldRev, newRev, opts());
    expect(res.inPlace).toBe(true);
    expect(store.writes).toEqual(['status', 'update']);
    const pod = store.current();
    expect(pod.spec!.containers[0]!.image).toBe('busybox:v2');
    expect(pod.metadata!.labels!['controller-revision-hash']).toBe(newRev.metadata!.name);
    expect(pod.metadata!.labels!['pod-template-hash']).toBe(newRev.metadata!.name!.split('-')[1]);
    const cond = (t: string) => pod.status!.conditions!.find((c) => c.type === t);
    expect(cond('InPlaceUpdateReady')).toMatchObject({ status: 'False', reason: 'StartInPlaceUpdate' });
    expect(cond('Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'the status of pod readiness gate "InPlaceUpdateReady" is not "True", but False',
    });
    expect(readState(pod)).toMatchObject({
      revision: newRev.metadata!.name,
      updateImages: true,
      lastContainerStatuses: { main: { imageID: 'sha256:main-v1' } },
    });
  });

  it('writes from the pod it is given (no read while that is current) and reads again after a conflict', async () => {
    const store = checkedPodStore(runningPod([{ name: 'main', image: 'busybox:v1' }]));
    const control = new InPlaceUpdateControl(store.access, () => Date.parse('2026-01-01T00:00:00Z'));
    const cached = store.current();
    await control.update(cached, oldRev, newRev, opts());
    expect(store.gets()).toBe(0);
    expect(store.writes).toEqual(['status', 'update']);
    expect(store.current().spec!.containers[0]!.image).toBe('busybox:v2');
    // a stale copy (the cache not caught up yet): the first write conflicts, the retry reads
    await control.update(cached, newRev, oldRev, opts());
    expect(store.gets()).toBe(1);
    expect(store.current().spec!.containers[0]!.image).toBe('busybox:v1');
    expect(store.current().metadata!.labels!['controller-revision-hash']).toBe(oldRev.metadata!.name);
    // the node reports the restarted container meanwhile: InPlaceUpdateReady True still gets written
    const restarted = store.current();
    (restarted.status as any).containerStatuses = [statusOf('main', 'sha256:main-v1', 'busybox:v1')];
    const stale = structuredClone(restarted);
    await store.access.updateStatus(restarted);
    await control.refresh(stale, opts());
    expect(store.gets()).toBe(2);
    expect(inPlaceReady(store.current())).toBe('True');
  });

  it('holds the change in the grace annotation, applies it once the grace period is over, then flips the condition back', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const store = podStore(runningPod([{ name: 'main', image: 'busybox:v1' }]));
    const control = new InPlaceUpdateControl(store.access, () => now);
    const res = await control.update(store.current(), oldRev, newRev, opts({ gracePeriodSeconds: 5 }));
    expect(res.delayMs).toBe(5000);
    expect(store.current().spec!.containers[0]!.image).toBe('busybox:v1');
    expect(store.current().metadata!.annotations![INPLACE_UPDATE_GRACE_KEY]).toContain('"graceSeconds":5');
    now += 2500;
    expect(await control.refresh(store.current(), opts({ gracePeriodSeconds: 5 }))).toEqual({
      delayMs: 3000,
    });
    now += 3000;
    await control.refresh(store.current(), opts({ gracePeriodSeconds: 5 }));
    expect(store.current().spec!.containers[0]!.image).toBe('busybox:v2');
    expect(store.current().metadata!.annotations![INPLACE_UPDATE_GRACE_KEY]).toBeUndefined();
    // Not complete yet: same imageID and kubelet still reports the old image.
    await control.refresh(store.current(), opts());
    expect(store.current().status!.conditions!.find((c) => c.type === 'InPlaceUpdateReady')!.status).toBe(
      'False',
    );
    // kubelet restarts the container with the new image.
    const restarted = store.current();
    (restarted.status as any).containerStatuses = [statusOf('main', 'sha256:main-v2', 'busybox:v2')];
    await store.access.updateStatus(restarted);
    await control.refresh(store.current(), opts());
    expect(store.current().status!.conditions!.find((c) => c.type === 'InPlaceUpdateReady')!.status).toBe(
      'True',
    );
  });

  it('rolls back a pod still in its grace period: the pending change is dropped and the pod completes at the old revision', async () => {
    const store = podStore(runningPod([{ name: 'main', image: 'busybox:v1' }]));
    const control = new InPlaceUpdateControl(store.access, () => Date.parse('2026-01-01T00:00:00Z'));
    await control.update(store.current(), oldRev, newRev, opts({ gracePeriodSeconds: 60 }));
    expect(store.current().metadata!.labels!['controller-revision-hash']).toBe(newRev.metadata!.name);
    await control.update(store.current(), newRev, oldRev, opts());
    const pod = store.current();
    expect(pod.metadata!.labels!['controller-revision-hash']).toBe(oldRev.metadata!.name);
    expect(pod.metadata!.annotations![INPLACE_UPDATE_GRACE_KEY]).toBeUndefined();
    expect(pod.spec!.containers[0]!.image).toBe('busybox:v1');
    await control.refresh(pod, opts());
    expect(store.current().status!.conditions!.find((c) => c.type === 'InPlaceUpdateReady')!.status).toBe(
      'True',
    );
  });

  it('drops a grace annotation whose revision the pod no longer has', async () => {
    const store = podStore(runningPod([{ name: 'main', image: 'busybox:v1' }]));
    const control = new InPlaceUpdateControl(store.access, () => Date.parse('2026-01-01T00:00:00Z'));
    await control.update(store.current(), oldRev, newRev, opts({ gracePeriodSeconds: 60 }));
    const moved = store.current();
    moved.metadata!.labels!['controller-revision-hash'] = oldRev.metadata!.name!;
    await store.access.update(moved);
    await control.refresh(store.current(), opts());
    expect(store.current().metadata!.annotations![INPLACE_UPDATE_GRACE_KEY]).toBeUndefined();
    expect(store.current().spec!.containers[0]!.image).toBe('busybox:v1');
  });

  it('does not touch the pod when the change cannot be made in place', async () => {
    const store = podStore(runningPod([{ name: 'main', image: 'busybox:v1' }]));
    const control = new InPlaceUpdateControl(store.access);
    const envChange = revision(
      template([{ name: 'main', image: 'busybox:v1', env: [{ name: 'A', value: '1' }] }]),
    );
    expect(await control.update(store.current(), oldRev, envChange, opts())).toEqual({ inPlace: false });
    expect(store.writes).toEqual([]);
  });
});
