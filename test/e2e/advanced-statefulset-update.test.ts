import { KruiseResources, type StatefulSet, type StatefulSetStatus } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubectl } from '../support/kubectl.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * Advanced StatefulSet updates end to end: kruise-manager, kruise-daemon and a local node as
 * processes on the test containerd. In-place updates restart containers in the same pods (same
 * UIDs and IPs), in the order the strategy gives; kubectl reads and writes the set at both
 * versions, and sees the validating webhook's refusals in upstream's words.
 */
const NODE = 'asts-update-node';
const Sets = KruiseResources.StatefulSet;
/** The resource as kubectl names it (plain `statefulsets` is apps/v1's). */
const ASTS = 'statefulsets.apps.kruise.io';
/** What kubectl prints before a refusal of the validating webhook. */
const DENIED = 'admission webhook "vstatefulset.kb.io" denied the request: ';

/** A pod as the API returns it. */
type Pod = KubeObject;
type Sts = StatefulSet & KubeObject;

let sys: System;
beforeAll(async () => {
  sys = await startSystem(NODE);
}, 120_000);
afterAll(async () => {
  // the sets first, so they do not replace the pods the system's stop deletes
  const sets = await sys?.client.list(Sets, { namespace: 'default' }).catch(() => undefined);
  for (const s of sets?.items ?? [])
    await sys.client.delete(Sets, 'default', s.metadata!.name!).catch(() => undefined);
  await sys?.stop();
});

const image = (tag: string) => `${sys.registry}/busybox:${tag}`;
const container = (tag: string) => ({ name: 'app', image: image(tag), command: LOOP });
/** A pod template with the InPlaceUpdateReady gate that in-place updates need. */
const template = (name: string) => ({
  metadata: { labels: { app: name } },
  spec: {
    readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
    terminationGracePeriodSeconds: 1,
    containers: [container('v1')],
  },
});
const statefulSet = (name: string, spec: Record<string, unknown>, apiVersion = 'apps.kruise.io/v1beta1') => ({
  apiVersion,
  kind: 'StatefulSet',
  metadata: { name, namespace: 'default' },
  spec: { selector: { matchLabels: { app: name } }, template: template(name), ...spec },
});
const rolling = (rollingUpdate: Record<string, unknown>) => ({
  updateStrategy: { type: 'RollingUpdate', rollingUpdate },
});
const create = (obj: object) => sys.client.create(Sets, obj as KubeObject);
const get = (name: string) => sys.client.get<Sts>(Sets, 'default', name);
const patchSpec = (name: string, spec: Record<string, unknown>) =>
  sys.client.mergePatch(Sets, 'default', name, { spec });
const newImage = (tag: string) => ({ template: { spec: { containers: [container(tag)] } } });

const nameOf = (p: Pod) => p.metadata!.name!;
const ordinalOf = (p: Pod) => Number(nameOf(p).slice(nameOf(p).lastIndexOf('-') + 1));
/** The set's pods not being deleted, by ordinal. */
const pods = async (name: string) =>
  (
    (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${name}` }))
      .items as Pod[]
  )
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => ordinalOf(a) - ordinalOf(b));
const uidOf = (p: Pod) => p.metadata!.uid;
const ipOf = (p: Pod) => p.status!.podIP;
const specImage = (p: Pod) => p.spec!.containers[0]!.image;
const revisionOf = (p: Pod) => p.metadata!.labels!['controller-revision-hash'];
const app = (p: Pod) => p.status!.containerStatuses![0]!;
const readyCondition = (p: Pod) =>
  p.status?.conditions?.find((c: { type: string }) => c.type === 'Ready') as
    | { status: string; lastTransitionTime: string }
    | undefined;
const isReady = (p: Pod) => readyCondition(p)?.status === 'True';
/** When the app container last started (whole seconds, as the node reports it). */
const startedAt = (p: Pod) => Date.parse(app(p).state!.running!.startedAt!);
/** When the pod last became Ready (whole seconds). */
const readySince = (p: Pod) => Date.parse(readyCondition(p)!.lastTransitionTime);

/** Waits until the set observed its generation and `check` holds on its status and pods. */
const settled = (name: string, check: (s: StatefulSetStatus, p: Pod[]) => boolean, ms = 60_000) =>
  until(async () => {
    const sts = await get(name);
    const s = sts.status;
    if (!s || s.observedGeneration !== sts.metadata?.generation) return undefined;
    return check(s, await pods(name)) ? s : undefined;
  }, ms);
/** Every pod Ready and the update rolled out to all `n`. */
const rolledOut = (n: number) => (s: StatefulSetStatus, p: Pod[]) =>
  p.length === n &&
  p.every(isReady) &&
  s.updatedAvailableReplicas === n &&
  s.currentRevision === s.updateRevision;

describe('Advanced StatefulSet updates on a real node', () => {
  it('updates the image in place, highest ordinal first: same pods (UID, IP), one restart each, each after the one before has been Ready for minReadySeconds', async () => {
    // minReadySeconds from the start: a pod Ready for less than that is unavailable, and an
    // unavailable pod may always be updated (upstream's rule), so all 3 must be available first
    await create(
      statefulSet('web', {
        replicas: 3,
        ...rolling({ podUpdatePolicy: 'InPlaceIfPossible', minReadySeconds: 2 }),
      }),
    );
    await settled('web', (s, p) => p.length === 3 && p.every(isReady) && s.availableReplicas === 3, 90_000);
    const before = await pods('web');
    expect(before.map(nameOf)).toEqual(['web-0', 'web-1', 'web-2']);
    expect(new Set(before.map(ipOf)).size).toBe(3);
    await patchSpec('web', newImage('v2'));
    // sampled while the update runs: the set's status, and the pods not Ready as `kubectl get pods` shows them
    const samples: { ready?: number; available?: number; notReady: number }[] = [];
    const done = await until(async () => {
      const [sts, p] = await Promise.all([get('web'), pods('web')]);
      const s = sts.status;
      samples.push({
        ready: s?.readyReplicas,
        available: s?.availableReplicas,
        notReady: 3 - p.filter(isReady).length,
      });
      return s?.observedGeneration === sts.metadata?.generation && rolledOut(3)(s!, p) ? s : undefined;
    }, 90_000);
    const after = await pods('web');
    expect(after.map(uidOf)).toEqual(before.map(uidOf));
    expect(after.map(ipOf)).toEqual(before.map(ipOf));
    for (const p of after) {
      expect(app(p)).toMatchObject({ image: image('v2'), restartCount: 1 });
      expect(revisionOf(p)).toBe(done.updateRevision);
    }
    // web-2, then web-1, then web-0: each restart minReadySeconds (2 s) or more after the pod before became Ready
    const [p0, p1, p2] = after as [Pod, Pod, Pod];
    expect(startedAt(p2)).toBeLessThan(startedAt(p1));
    expect(startedAt(p1)).toBeLessThan(startedAt(p0));
    expect(startedAt(p1) - readySince(p2)).toBeGreaterThanOrEqual(2000);
    expect(startedAt(p0) - readySince(p1)).toBeGreaterThanOrEqual(2000);
    // a pod Ready for less than minReadySeconds is not counted available yet
    expect(samples.some((s) => s.ready === 3 && s.available === 2)).toBe(true);
    // one pod at a time (maxUnavailable 1), and one was down at some point
    expect(Math.max(...samples.map((s) => s.notReady))).toBe(1);
  }, 120_000);

  it('partition keeps that many pods (counted in update order) at the old revision; lowering it updates the rest in place', async () => {
    const before = await pods('web');
    // the test registry holds busybox v1 and v2: back to v1 is a rollout like any other
    await patchSpec('web', { ...rolling({ partition: 2, minReadySeconds: 0 }), ...newImage('v1') });
    // The marker: a status written by a reconcile that saw web-2 updated and available, after it
    // had made its update decisions (an update of web-1 would show in its spec by then).
    const held = await settled(
      'web',
      (s, p) =>
        p.every(isReady) &&
        s.updatedReplicas === 1 &&
        s.updatedAvailableReplicas === 1 &&
        s.availableReplicas === 3,
    );
    expect(held.currentRevision).not.toBe(held.updateRevision);
    const mid = await pods('web');
    expect(mid.map(specImage)).toEqual([image('v2'), image('v2'), image('v1')]);
    expect(mid.map(revisionOf)).toEqual([held.currentRevision, held.currentRevision, held.updateRevision]);
    expect(mid.map(uidOf)).toEqual(before.map(uidOf));
    await patchSpec('web', rolling({ partition: 0 }));
    await settled('web', rolledOut(3));
    const after = await pods('web');
    expect(after.map(uidOf)).toEqual(before.map(uidOf));
    expect(after.map(ipOf)).toEqual(before.map(ipOf));
    for (const p of after) expect(app(p)).toMatchObject({ image: image('v1'), restartCount: 2 });
  }, 90_000);

  it('a pod marked specified-delete is replaced by a new pod of the same name, though the partition holds every pod', async () => {
    const before = await pods('web');
    // a new revision no pod may take (partition 3 of 3)
    await patchSpec('web', { ...rolling({ partition: 3 }), ...newImage('v2') });
    await settled('web', (s) => s.currentRevision !== s.updateRevision);
    await sys.client.mergePatch(Resources.Pod, 'default', 'web-1', {
      metadata: { labels: { 'apps.kruise.io/specified-delete': 'true' } },
    });
    const s = await settled(
      'web',
      (st, p) =>
        p.length === 3 &&
        uidOf(p[1]!) !== uidOf(before[1]!) &&
        p.every(isReady) &&
        st.availableReplicas === 3,
    );
    const [p0, p1, p2] = (await pods('web')) as [Pod, Pod, Pod];
    expect(nameOf(p1)).toBe('web-1');
    expect(p1.metadata!.labels!['apps.kruise.io/specified-delete']).toBeUndefined();
    // a new sandbox: an IP of its own; the partition still keeps it at the current revision
    expect(ipOf(p1)).not.toBe(ipOf(before[1]!));
    expect(revisionOf(p1)).toBe(s.currentRevision);
    expect(app(p1)).toMatchObject({ image: image('v1'), restartCount: 0 });
    // the others are left as they were (that status came after the reconcile's update decisions)
    expect([p0, p2].map(uidOf)).toEqual([before[0]!, before[2]!].map(uidOf));
    expect([p0, p2].map(specImage)).toEqual([image('v1'), image('v1')]);
  }, 60_000);

  it('unorderedUpdate (Parallel) updates by weight priority, not by ordinal', async () => {
    const weighted = (weight: number, ordinal: number) => ({
      weight,
      matchSelector: { matchLabels: { 'apps.kubernetes.io/pod-index': String(ordinal) } },
    });
    await create(
      statefulSet('prio', {
        replicas: 3,
        podManagementPolicy: 'Parallel',
        ...rolling({
          podUpdatePolicy: 'InPlaceIfPossible',
          // one restart per second at least: the order shows in the whole-second start times
          minReadySeconds: 1,
          unorderedUpdate: { priorityStrategy: { weightPriority: [weighted(100, 1), weighted(50, 2)] } },
        }),
      }),
    );
    await settled('prio', (s, p) => p.length === 3 && p.every(isReady) && s.availableReplicas === 3);
    const before = await pods('prio');
    await patchSpec('prio', newImage('v2'));
    await settled('prio', rolledOut(3));
    const after = await pods('prio');
    expect(after.map(uidOf)).toEqual(before.map(uidOf));
    for (const p of after) expect(app(p)).toMatchObject({ image: image('v2'), restartCount: 1 });
    const order = [...after].sort((a, b) => startedAt(a) - startedAt(b)).map(nameOf);
    expect(order).toEqual(['prio-1', 'prio-2', 'prio-0']);
    expect(new Set(after.map(startedAt)).size).toBe(3);
  }, 90_000);

  it('InPlaceOnly: kubectl is refused a template change beyond images in upstream’s words and nothing changes; an image change goes in place', async () => {
    await create(statefulSet('only', { replicas: 1, ...rolling({ podUpdatePolicy: 'InPlaceOnly' }) }));
    await settled('only', (s, p) => p.length === 1 && p.every(isReady) && s.availableReplicas === 1);
    const stored = await get('only');
    const [before] = await pods('only');
    const jsonPatch = (ops: object[]) =>
      kubectl(sys.kubeconfig, ['patch', ASTS, 'only', '--type=json', '-p', JSON.stringify(ops)]);
    const env = await jsonPatch([
      { op: 'add', path: '/spec/template/spec/containers/0/env', value: [{ name: 'MODE', value: 'fast' }] },
    ]);
    expect(env).toMatchObject({
      status: 1,
      stdout: '',
      stderr: `Error from server: ${DENIED}invalid template modified with InPlaceOnly strategy: add /containers/0/env, currently only image update is allowed for InPlaceOnly\n`,
    });
    const unchanged = await get('only');
    expect(unchanged.metadata!.generation).toBe(stored.metadata!.generation);
    expect(unchanged.spec).toEqual(stored.spec);
    const img = await jsonPatch([
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: image('v2') },
    ]);
    expect(img).toMatchObject({ status: 0, stdout: 'statefulset.apps.kruise.io/only patched\n' });
    await settled('only', rolledOut(1));
    const [after] = await pods('only');
    expect(uidOf(after!)).toBe(uidOf(before!));
    expect(ipOf(after!)).toBe(ipOf(before!));
    expect(app(after!)).toMatchObject({ image: image('v2'), restartCount: 1 });
  }, 60_000);

  it('one object at v1alpha1 and v1beta1 through kubectl: applied as v1alpha1, the same at both; a v1alpha1 write keeps v1beta1’s reserveOrdinals', async () => {
    const applied = await kubectl(
      sys.kubeconfig,
      ['apply', '-f', '-'],
      stringify(
        statefulSet('versions', { replicas: 1, podManagementPolicy: 'Parallel' }, 'apps.kruise.io/v1alpha1'),
      ),
    );
    expect(applied).toMatchObject({ status: 0, stdout: 'statefulset.apps.kruise.io/versions created\n' });
    await settled('versions', (s, p) => p.length === 1 && s.readyReplicas === 1);
    const read = async (version: string) => {
      const r = await kubectl(sys.kubeconfig, [
        'get',
        `statefulsets.${version}.apps.kruise.io`,
        'versions',
        '-o',
        'json',
      ]);
      if (r.status !== 0) throw new Error(r.stderr);
      return JSON.parse(r.stdout) as Sts;
    };
    // two reads: the same resourceVersion once no status write falls between them
    const [alpha, beta] = await until(async () => {
      const both = [await read('v1alpha1'), await read('v1beta1')] as const;
      return both[0].metadata!.resourceVersion === both[1].metadata!.resourceVersion ? both : undefined;
    });
    expect(alpha.apiVersion).toBe('apps.kruise.io/v1alpha1');
    expect(beta.apiVersion).toBe('apps.kruise.io/v1beta1');
    expect(alpha.metadata).toEqual(beta.metadata);
    expect(alpha.spec).toEqual(beta.spec);
    expect(beta.spec!.template.spec!.containers[0]!.image).toBe(image('v1'));
    expect(alpha.status).toMatchObject({ replicas: 1, readyReplicas: 1 });
    // v1beta1's own status fields are not served at v1alpha1
    expect(beta.status!.updatedReadyReplicas).toBe(1);
    expect(alpha.status!.updatedReadyReplicas).toBeUndefined();

    const mergePatch = (version: string, spec: object) =>
      kubectl(sys.kubeconfig, [
        'patch',
        `statefulsets.${version}.apps.kruise.io`,
        'versions',
        '--type=merge',
        '-p',
        JSON.stringify({ spec }),
      ]);
    // reserveOrdinals is v1beta1's: reserving 0 moves the one pod to ordinal 1
    expect(await mergePatch('v1beta1', { reserveOrdinals: [0] })).toMatchObject({ status: 0 });
    await settled(
      'versions',
      (s, p) => p.map(nameOf).join() === 'versions-1' && p.every(isReady) && s.readyReplicas === 1,
    );
    expect(await mergePatch('v1alpha1', { replicas: 2 })).toMatchObject({ status: 0 });
    await settled(
      'versions',
      (s, p) => p.map(nameOf).join() === 'versions-1,versions-2' && s.readyReplicas === 2,
    );
    expect((await read('v1beta1')).spec).toMatchObject({ replicas: 2, reserveOrdinals: [0] });
    const alphaAfter = await read('v1alpha1');
    expect(alphaAfter.spec!.replicas).toBe(2);
    expect(alphaAfter.spec!.reserveOrdinals).toBeUndefined();
  }, 90_000);

  it('refuses bad objects through kubectl in upstream’s words, at both versions, and stores none of them', async () => {
    const { readinessGates: _gate, ...noGate } = template('bad-gate').spec;
    const bad: [string, Record<string, unknown>, string][] = [
      [
        'bad-policy',
        { podManagementPolicy: 'Sometimes' },
        `spec.podManagementPolicy: Invalid value: "Sometimes": must be 'OrderedReady' or 'Parallel'`,
      ],
      [
        'bad-reserve',
        { reserveOrdinals: [-1] },
        'spec: Invalid value: []intstr.IntOrString{intstr.IntOrString{Type:0, IntVal:-1, StrVal:""}}: 0 th reserve ordinal is negative: -1',
      ],
      [
        'bad-min-ready',
        rolling({ minReadySeconds: 301 }),
        'spec.updateStrategy.rollingUpdate.minReadySeconds: Invalid value: 301: must be no more than 300 seconds',
      ],
      [
        'bad-unordered',
        rolling({ unorderedUpdate: {} }),
        'spec.updateStrategy.rollingUpdate.unorderedUpdate: Required value: unorderedUpdate can only work with Parallel PodManagementPolicyType',
      ],
      [
        'bad-gate',
        {
          ...rolling({ podUpdatePolicy: 'InPlaceIfPossible' }),
          template: { metadata: { labels: { app: 'bad-gate' } }, spec: noGate },
        },
        'spec.template.spec.readinessGates: Invalid value: []v1.PodReadinessGate(nil): must contains InPlaceUpdateReady when podUpdatePolicy is InPlaceIfPossible',
      ],
      [
        'bad-deadline',
        {
          template: {
            ...template('bad-deadline'),
            spec: { ...template('bad-deadline').spec, activeDeadlineSeconds: 60 },
          },
        },
        'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported',
      ],
    ];
    const docs = [
      ...bad.map(([name, spec]) => statefulSet(name, { replicas: 0, ...spec })),
      statefulSet('bad-alpha', { replicas: 0, podManagementPolicy: 'Sometimes' }, 'apps.kruise.io/v1alpha1'),
    ];
    const created = await kubectl(
      sys.kubeconfig,
      ['create', '-f', '-'],
      docs.map((d) => stringify(d)).join('---\n'),
    );
    expect(created.status).toBe(1);
    expect(created.stdout).toBe('');
    const refusal = (message: string) =>
      `Error from server: error when creating "STDIN": ${DENIED}${message}`;
    expect(created.stderr.split('\n').filter(Boolean)).toEqual([
      ...bad.map(([, , message]) => refusal(message)),
      refusal(bad[0]![2]),
    ]);
    const names = docs.map((d) => d.metadata.name);
    const got = await kubectl(sys.kubeconfig, ['get', ASTS, ...names, '-o', 'name']);
    expect(got.stdout).toBe('');
    expect(got.stderr.split('\n').filter(Boolean)).toEqual(
      names.map((n) => `Error from server (NotFound): ${ASTS} "${n}" not found`),
    );

    // an update of a field fixed at creation: refused, the stored set unchanged
    await create(statefulSet('fixed', { replicas: 0 }));
    const stored = await get('fixed');
    const changed = await kubectl(sys.kubeconfig, [
      'patch',
      ASTS,
      'fixed',
      '--type=merge',
      '-p',
      '{"spec":{"podManagementPolicy":"Parallel"}}',
    ]);
    expect(changed).toMatchObject({
      status: 1,
      stderr: `Error from server: ${DENIED}spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'reserveOrdinals', 'lifecycle', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', \`volumeClaimTemplates\`, \`VolumeClaimUpdateStrategy\` and 'updateStrategy' are forbidden\n`,
    });
    const after = await get('fixed');
    expect(after.spec).toEqual(stored.spec);
    expect(after.metadata!.generation).toBe(stored.metadata!.generation);
  }, 60_000);
});
