import { type ContainerRecreateRequest, KruiseResources } from '@kruise/api';
import { CriClient } from '@kruise/cri/client';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOP, type System, startSystem, until } from './env.ts';

let sys: System;
let cri: CriClient;
beforeAll(async () => {
  sys = await startSystem('crr-node');
  cri = new CriClient(sys.criSocket);
});
afterAll(async () => {
  cri?.close();
  await sys?.stop();
});

type Crr = ContainerRecreateRequest & KubeObject;
const NS = 'default';

/** Creates a two-container pod (`app`, `sidecar`) on the local node and waits until it is Running and Ready. */
async function runningPod(name: string, tweak: (spec: any) => void = () => {}): Promise<KubeObject> {
  const spec: any = {
    nodeName: sys.node,
    terminationGracePeriodSeconds: 30,
    containers: [
      { name: 'app', image: `${sys.registry}/busybox:v1`, command: LOOP },
      { name: 'sidecar', image: `${sys.registry}/busybox:v2`, command: LOOP },
    ],
  };
  tweak(spec);
  await sys.client.create(Resources.Pod, { metadata: { name, namespace: NS }, spec });
  return until(async () => {
    const p = await sys.client.get(Resources.Pod, NS, name);
    const ready = p.status?.conditions?.find((c: any) => c.type === 'ContainersReady')?.status === 'True';
    return p.status?.phase === 'Running' && ready ? p : undefined;
  });
}

const crr = (name: string, podName: string, spec: Record<string, unknown>) =>
  sys.client.create<Crr>(KruiseResources.ContainerRecreateRequest, {
    metadata: { name, namespace: NS },
    spec: { podName, ...spec },
  });

const completed = (name: string, timeoutMs = 30_000) =>
  until(async () => {
    const c = await sys.client.get<Crr>(KruiseResources.ContainerRecreateRequest, NS, name);
    return c.status?.phase === 'Completed' ? c : undefined;
  }, timeoutMs);

const pod = (name: string) => sys.client.get(Resources.Pod, NS, name);
const status = (p: KubeObject, c: string) => p.status.containerStatuses.find((s: any) => s.name === c);
const secs = (t: string) => Date.parse(t) / 1000;
/** A container's `startedAt` or `finishedAt` as the runtime records it (ns). */
const runtimeTime = async (containerID: string, field: 'startedAt' | 'finishedAt') =>
  BigInt((await cri.containerStatus(containerID.replace('containerd://', ''))).status![field]);

describe('ContainerRecreateRequest end to end (manager, daemon, local node, containerd)', () => {
  it('recreates one container; Succeeded only after minStartedSeconds; labels, statusContext and a Killing event', async () => {
    const p = await runningPod('single');
    const before = status(p, 'app');
    const created = await crr('single', 'single', {
      containers: [{ name: 'app' }],
      strategy: { minStartedSeconds: 3 },
    });
    expect(created.metadata?.labels).toMatchObject({
      'crr.apps.kruise.io/pod-uid': p.metadata?.uid,
      'crr.apps.kruise.io/node-name': sys.node,
      'crr.apps.kruise.io/active': 'true',
    });
    expect(created.spec?.containers[0]?.statusContext).toEqual({
      containerID: before.containerID,
      restartCount: 0,
    });
    expect(created.spec?.strategy).toMatchObject({
      failurePolicy: 'Fail',
      terminationGracePeriodSeconds: 30,
    });
    const done = await completed('single');
    expect(done.status?.containerRecreateStates).toEqual([
      { name: 'app', phase: 'Succeeded', isKilled: true },
    ]);
    const after = await pod('single');
    const app = status(after, 'app');
    expect(app.restartCount).toBe(1);
    expect(app.containerID).not.toBe(before.containerID);
    expect(status(after, 'sidecar').restartCount).toBe(0);
    expect(secs(done.status!.completionTime!) - secs(app.state.running.startedAt)).toBeGreaterThanOrEqual(3);
    await until(async () => {
      const { items } = await sys.client.list(KruiseResources.ContainerRecreateRequest, { namespace: NS });
      return items.find(
        (c) => c.metadata?.name === 'single' && !c.metadata.labels?.['crr.apps.kruise.io/active'],
      );
    });
    const events = await sys.client.list(Resources.Event, { namespace: NS });
    expect(
      events.items.some(
        (e: any) =>
          e.reason === 'Killing' &&
          e.involvedObject?.name === 'single' &&
          e.message === 'Stopping container app by ContainerRecreateRequest single',
      ),
    ).toBe(true);
  });

  it('recreates both containers at once unordered, one after the other with orderedRecreate', async () => {
    await Promise.all([runningPod('unordered'), runningPod('ordered')]);
    await crr('unordered', 'unordered', { containers: [{ name: 'app' }, { name: 'sidecar' }] });
    await crr('ordered', 'ordered', {
      containers: [{ name: 'app' }, { name: 'sidecar' }],
      strategy: { orderedRecreate: true, minStartedSeconds: 2 },
    });
    const [u, o] = await Promise.all([completed('unordered'), completed('ordered')]);
    for (const c of [u, o])
      expect(c.status?.containerRecreateStates?.map((s) => s.phase)).toEqual(['Succeeded', 'Succeeded']);
    // unordered: each old container was stopped before the other's new one started (neither waited
    // for the other's restart; the runtime's nanosecond times)
    const up = await pod('unordered');
    const finished = (c: string) => runtimeTime(status(up, c).lastState.terminated.containerID, 'finishedAt');
    const started = (c: string) => runtimeTime(status(up, c).containerID, 'startedAt');
    expect(await finished('sidecar')).toBeLessThan(await started('app'));
    expect(await finished('app')).toBeLessThan(await started('sidecar'));
    const op = await pod('ordered');
    // the sidecar is stopped only once the new app has run for minStartedSeconds
    expect(secs(status(op, 'sidecar').lastState.terminated.finishedAt)).toBeGreaterThanOrEqual(
      secs(status(op, 'app').state.running.startedAt) + 2,
    );
  });

  it('runs the preStop hook before stopping, and the stop waits for it', async () => {
    await runningPod('prestop', (s) => {
      s.containers[0].lifecycle = { preStop: { exec: { command: ['sleep', '2'] } } };
    });
    const created = await crr('prestop', 'prestop', { containers: [{ name: 'app' }] });
    expect(created.spec?.containers[0]?.preStop).toEqual({ exec: { command: ['sleep', '2'] } });
    await completed('prestop');
    const app = status(await pod('prestop'), 'app');
    expect(
      secs(app.lastState.terminated.finishedAt) - secs(created.metadata!.creationTimestamp!),
    ).toBeGreaterThanOrEqual(2);
    expect(app.lastState.terminated.exitCode).toBe(0);
  });

  it('ends at activeDeadlineSeconds even while preStop runs, marking unfinished containers Failed', async () => {
    await runningPod('deadline', (s) => {
      s.containers[0].lifecycle = { preStop: { exec: { command: ['sleep', '10'] } } };
    });
    const created = await crr('deadline', 'deadline', {
      containers: [{ name: 'app' }],
      activeDeadlineSeconds: 3,
    });
    const done = await completed('deadline', 15_000);
    expect(done.status?.message).toBe('recreating has exceeded the activeDeadlineSeconds');
    // ended at its deadline (3 s), not when the preStop hook would have (10 s)
    const took = secs(done.status!.completionTime!) - secs(created.metadata!.creationTimestamp!);
    expect(took).toBeGreaterThanOrEqual(3);
    expect(took).toBeLessThan(10);
    expect(done.status?.containerRecreateStates).toEqual([
      expect.objectContaining({
        name: 'app',
        phase: 'Failed',
        message: 'recreating has exceeded the activeDeadlineSeconds',
      }),
    ]);
  });

  it('holds the pod not-ready for unreadyGracePeriodSeconds, then restores readiness', async () => {
    await runningPod('unready', (s) => {
      s.readinessGates = [{ conditionType: 'KruisePodReady' }];
    });
    await sys.client.request('PATCH', `/api/v1/namespaces/${NS}/pods/unready/status`, {
      body: { status: { conditions: [{ type: 'KruisePodReady', status: 'True' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    await until(
      async () =>
        (await pod('unready')).status.conditions.find((c: any) => c.type === 'Ready')?.status === 'True',
    );
    const before = status(await pod('unready'), 'app');
    await crr('unready', 'unready', {
      containers: [{ name: 'app' }],
      strategy: { unreadyGracePeriodSeconds: 2 },
    });
    const held = await until(async () => {
      const p = await pod('unready');
      const c = p.status.conditions.find((x: any) => x.type === 'KruisePodReady');
      return c?.status === 'False' ? { p, c } : undefined;
    });
    expect(JSON.parse(held.c.message)).toEqual([
      { userAgent: 'ContainerRecreateRequest', key: `${NS}/unready` },
    ]);
    expect(held.p.status.conditions.find((x: any) => x.type === 'Ready').status).toBe('False');
    expect(status(held.p, 'app').containerID).toBe(before.containerID);
    const mid = await sys.client.get<Crr>(KruiseResources.ContainerRecreateRequest, NS, 'unready');
    expect(mid.metadata?.finalizers).toContain('crr.apps.kruise.io/unready-acquired');
    const acquired = mid.metadata?.annotations?.['crr.apps.kruise.io/unready-acquired'];
    expect(acquired).toBeTruthy();
    await completed('unready');
    const after = await until(async () => {
      const p = await pod('unready');
      return p.status.conditions.find((x: any) => x.type === 'Ready')?.status === 'True' ? p : undefined;
    });
    expect(after.status.conditions.find((x: any) => x.type === 'KruisePodReady').status).toBe('True');
    // the container was stopped only after the grace period
    expect(secs(status(after, 'app').lastState.terminated.finishedAt)).toBeGreaterThanOrEqual(
      secs(acquired!) + 2,
    );
    await until(
      async () =>
        !(await sys.client.get<Crr>(KruiseResources.ContainerRecreateRequest, NS, 'unready')).metadata
          ?.finalizers?.length,
    );
  });

  it('forceRecreate stops a container that already restarted on its own; without it that restart counts', async () => {
    await Promise.all([runningPod('plain'), runningPod('forced')]);
    // kubelet is down while both apps exit: the pod status still shows the old containers
    await sys.localNode.stop();
    for (const name of ['plain', 'forced']) {
      const id = status(await pod(name), 'app').containerID.replace('containerd://', '');
      await cri.stopContainer(id, 2);
    }
    await crr('plain', 'plain', { containers: [{ name: 'app' }] });
    await crr('forced', 'forced', { containers: [{ name: 'app' }], strategy: { forceRecreate: true } });
    await sys.startLocalNode();
    const [plain, forced] = await Promise.all([completed('plain'), completed('forced')]);
    expect(plain.status?.containerRecreateStates?.[0]?.phase).toBe('Succeeded');
    expect(forced.status?.containerRecreateStates?.[0]?.phase).toBe('Succeeded');
    expect(status(await pod('plain'), 'app').restartCount).toBe(1);
    expect(status(await pod('forced'), 'app').restartCount).toBe(2);
  });

  it('completes with "pod has gone" when the pod is deleted during a recreation', async () => {
    await runningPod('gone', (s) => {
      s.containers[0].lifecycle = { preStop: { exec: { command: ['sleep', '5'] } } };
    });
    await crr('gone', 'gone', { containers: [{ name: 'app' }] });
    await until(
      async () =>
        (await sys.client.get<Crr>(KruiseResources.ContainerRecreateRequest, NS, 'gone')).status?.phase ===
        'Recreating',
    );
    await sys.client.delete(Resources.Pod, NS, 'gone', { gracePeriodSeconds: 3 });
    const done = await completed('gone');
    expect(done.status?.message).toBe('pod has gone');
  });

  it('completes two requests on the same pod, neither stuck in Pending', async () => {
    await runningPod('twice');
    await Promise.all([
      crr('twice-app', 'twice', { containers: [{ name: 'app' }] }),
      crr('twice-sidecar', 'twice', { containers: [{ name: 'sidecar' }] }),
    ]);
    const [a, b] = await Promise.all([completed('twice-app'), completed('twice-sidecar')]);
    expect(a.status?.containerRecreateStates?.[0]?.phase).toBe('Succeeded');
    expect(b.status?.containerRecreateStates?.[0]?.phase).toBe('Succeeded');
    const p = await pod('twice');
    expect([status(p, 'app').restartCount, status(p, 'sidecar').restartCount]).toEqual([1, 1]);
  });

  it('denies bad requests on create with upstream messages', async () => {
    const deny = async (name: string, spec: Record<string, unknown>) => {
      const err = await crr(name, spec.podName as string, spec).catch((e) => e);
      expect(err?.code, `${name} should be denied`).toBe(400);
      return String(err.message).replace(
        'admission webhook "mcontainerrecreaterequest.kb.io" denied the request: ',
        '',
      );
    };
    await runningPod('target');
    await sys.client.create(Resources.Pod, {
      metadata: { name: 'finished', namespace: NS },
      spec: {
        nodeName: sys.node,
        restartPolicy: 'Never',
        containers: [{ name: 'app', image: `${sys.registry}/busybox:v1`, command: ['true'] }],
      },
    });
    await until(async () => (await pod('finished')).status?.phase === 'Succeeded');
    const one = (extra: Record<string, unknown>) => ({
      metadata: { name: String(extra.name), namespace: NS },
      spec: { containers: [{ name: 'app', image: `${sys.registry}/busybox:v1` }], ...(extra.spec as object) },
    });
    // No node carries this label, so the control plane's scheduler leaves the pod pending.
    await sys.client.create(
      Resources.Pod,
      one({ name: 'unscheduled', spec: { nodeSelector: { 'kruise-e2e/no-such-node': 'true' } } }),
    );
    await sys.client.create(Resources.Pod, one({ name: 'on-ghost', spec: { nodeName: 'ghost' } }));
    await sys.client.create(Resources.Node, { metadata: { name: 'idle' } });
    await sys.client.create(Resources.Pod, one({ name: 'no-status', spec: { nodeName: 'idle' } }));
    await sys.client.create(Resources.Pod, one({ name: 'no-id', spec: { nodeName: 'idle' } }));
    await sys.client.mergePatchStatus(Resources.Pod, NS, 'no-id', {
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'app',
            image: 'x',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ContainerCreating' } },
          },
        ],
      },
    });
    const app = [{ name: 'app' }];
    const cases: [string, Record<string, unknown>, string][] = [
      ['d-nopod', { podName: '', containers: app }, 'podName can not be empty'],
      ['d-empty', { podName: 'target', containers: [] }, 'containers list can not be null'],
      [
        'd-deadline',
        { podName: 'target', containers: app, activeDeadlineSeconds: 2 },
        'activeDeadlineSeconds can not be less than 3s',
      ],
      [
        'd-grace',
        { podName: 'target', containers: app, strategy: { terminationGracePeriodSeconds: -1 } },
        'terminationGracePeriodSeconds must be non-negative integer',
      ],
      [
        'd-unready',
        { podName: 'target', containers: app, strategy: { unreadyGracePeriodSeconds: -1 } },
        'unreadyGracePeriodSeconds must be non-negative integer',
      ],
      [
        'd-policy',
        { podName: 'target', containers: app, strategy: { failurePolicy: 'Sometimes' } },
        'unknown failurePolicy Sometimes',
      ],
      ['d-missing', { podName: 'nope', containers: app }, 'no found Pod named nope'],
      [
        'd-inactive',
        { podName: 'finished', containers: app },
        'not allowed to recreate containers in an inactive Pod',
      ],
      [
        'd-pending',
        { podName: 'unscheduled', containers: app },
        'not allowed to recreate containers in a pending Pod',
      ],
      [
        'd-ghost',
        { podName: 'on-ghost', containers: app },
        'failed to get Node ghost: nodes "ghost" not found',
      ],
      [
        'd-twice',
        { podName: 'target', containers: [{ name: 'app' }, { name: 'app' }] },
        'can not recreate app multi times',
      ],
      [
        'd-readonly',
        { podName: 'target', containers: [{ name: 'app', ports: [{ containerPort: 80 }] }] },
        'preStop, ports, statusContext in container are ready-only fields',
      ],
      ['d-noname', { podName: 'target', containers: [{ name: 'db' }] }, 'container db not found in Pod'],
      [
        'd-nostatus',
        { podName: 'no-status', containers: app },
        'not found app containerStatus in Pod Status',
      ],
      [
        'd-noid',
        { podName: 'no-id', containers: app },
        'no containerID in app containerStatus, maybe the container has not been initialized',
      ],
    ];
    for (const [name, spec, message] of cases) expect(await deny(name, spec), name).toBe(message);
    const { items } = await sys.client.list(KruiseResources.ContainerRecreateRequest, { namespace: NS });
    expect(items.filter((c) => c.metadata?.name?.startsWith('d-'))).toEqual([]);
  });

  it('denies updates of the spec, the pod-uid and node-name labels and a set unready-acquired time (403)', async () => {
    await runningPod('immutable');
    const c = await crr('immutable', 'immutable', {
      containers: [{ name: 'app' }],
      strategy: { unreadyGracePeriodSeconds: 600 },
    });
    const patch = (body: unknown) =>
      sys.client.mergePatch(KruiseResources.ContainerRecreateRequest, NS, 'immutable', body).catch((e) => e);
    const hook = 'admission webhook "mcontainerrecreaterequest.kb.io" denied the request: ';
    const spec = await patch({ spec: { activeDeadlineSeconds: 60 } });
    expect([spec.code, spec.message]).toEqual([403, `${hook}spec of ContainerRecreateRequest is immutable`]);
    for (const label of ['crr.apps.kruise.io/pod-uid', 'crr.apps.kruise.io/node-name']) {
      const err = await patch({ metadata: { labels: { [label]: 'other' } } });
      expect([err.code, err.message]).toEqual([403, `${hook}not allowed to update immutable label ${label}`]);
    }
    await until(
      async () =>
        (await sys.client.get<Crr>(KruiseResources.ContainerRecreateRequest, NS, 'immutable')).metadata
          ?.annotations?.['crr.apps.kruise.io/unready-acquired'],
    );
    const moved = await patch({
      metadata: { annotations: { 'crr.apps.kruise.io/unready-acquired': '2020-01-01T00:00:00Z' } },
    });
    expect([moved.code, moved.message]).toEqual([
      403,
      `${hook}not allowed to update immutable annotation crr.apps.kruise.io/unready-acquired`,
    ]);
    const fine = await patch({ metadata: { labels: { team: 'a' } } });
    expect(fine.metadata?.labels?.team).toBe('a');
    expect(c.metadata?.uid).toBe(fine.metadata?.uid);
  });
});
