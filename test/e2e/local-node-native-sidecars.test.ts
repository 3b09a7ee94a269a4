import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CriClient } from '@kruise/cri/client';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { until } from '../support/poll.ts';

const registry = inject('registry');
const hostDir = mkdtempSync(join(tmpdir(), 'kruise-sidecars-'));
// Registered before the node's hooks, so it runs once the node has stopped.
afterAll(() => rmSync(hostDir, { recursive: true, force: true }));
const env = useLocalNode('ln-sidecars');
let client: KubeClient;
let cri: CriClient;
beforeAll(() => {
  ({ client, cri } = env);
});

/** A busybox shell running `script`, then looping; it exits at once on SIGTERM (after `onTerm`). */
const run = (script = 'true', onTerm = '') => [
  'sh',
  '-c',
  `trap '${onTerm} exit 0' TERM; ${script}; while true; do sleep 0.2; done`,
];
const busybox = `${registry}/busybox:v1`;
/** A native sidecar: an init container with restartPolicy Always. */
const sidecar = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: busybox,
  restartPolicy: 'Always',
  command: run(),
  ...extra,
});
const createPod = (name: string, spec: Record<string, unknown>) =>
  client.create(Resources.Pod, {
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'ln-sidecars', terminationGracePeriodSeconds: 5, ...spec },
  });
const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const statusOf = (p: KubeObject, c: string) => p.status?.containerStatuses?.find((s: any) => s.name === c);
const initStatusOf = (p: KubeObject, c: string) =>
  p.status?.initContainerStatuses?.find((s: any) => s.name === c);
const conditionOf = (p: KubeObject, type: string) => p.status?.conditions?.find((c: any) => c.type === type);
const idOf = (s: { containerID: string }) => s.containerID.replace('containerd://', '');
/** When the runtime created / started a container (ms, containerd's clock is this machine's). */
const runtimeTimes = async (id: string) => {
  const { status } = await cri.containerStatus(id);
  return {
    createdAt: Number(BigInt(status!.createdAt) / 1_000_000n),
    startedAt: Number(BigInt(status!.startedAt) / 1_000_000n),
  };
};
/** The names of the pod's containers in the runtime. */
const runtimeNames = async (uid: string) =>
  (await cri.listContainers({ labelSelector: { 'io.kubernetes.pod.uid': uid } })).containers.map(
    (c) => c.metadata?.name,
  );
const inContainer = async (id: string, script: string) => {
  const res = await cri.execSync(id, ['sh', '-c', script], 5);
  expect(res.exitCode).toBe(0);
};
const eventsOf = async (pod: string) =>
  (await client.list(Resources.Event, { namespace: 'default' })).items
    .filter((e: any) => e.involvedObject.name === pod)
    .map((e: any) => `${e.reason}: ${e.message}`);

describe.concurrent('native sidecars', () => {
  it('start in order before the app: a startupProbe gates the next init container, readiness counts for the pod', async () => {
    const created = await createPod('order', {
      initContainers: [
        sidecar('proxy', {
          startupProbe: {
            exec: { command: ['test', '-f', '/tmp/started'] },
            periodSeconds: 1,
            failureThreshold: 100,
          },
          readinessProbe: {
            exec: { command: ['test', '-f', '/tmp/ready'] },
            periodSeconds: 1,
            failureThreshold: 1,
          },
        }),
        { name: 'setup', image: busybox, command: ['true'] },
      ],
      containers: [{ name: 'app', image: busybox, command: run() }],
    });
    const uid = created.metadata!.uid!;
    const running = await until(async () => {
      const p = await getPod('order');
      return initStatusOf(p, 'proxy')?.state.running ? p : undefined;
    });
    expect(initStatusOf(running, 'proxy')).toMatchObject({ started: false, ready: false, restartCount: 0 });
    expect(running.status.phase).toBe('Pending');
    // The marker: the startup probe failed three times (a period each), and still only the sidecar exists.
    const failures = async () =>
      (await client.list(Resources.Event, { namespace: 'default' })).items
        .filter(
          (e: any) =>
            e.involvedObject.name === 'order' &&
            e.reason === 'Unhealthy' &&
            e.message.startsWith('Startup probe failed'),
        )
        .reduce((n: number, e: any) => n + (e.count ?? 1), 0);
    await until(async () => ((await failures()) >= 3 ? true : undefined));
    expect(await runtimeNames(uid)).toEqual(['proxy']);
    expect(conditionOf(await getPod('order'), 'Initialized')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [proxy setup]',
    });
    const proxyId = idOf(initStatusOf(running, 'proxy'));
    const startedAt = Date.now();
    await inContainer(proxyId, 'touch /tmp/started');
    const up = await until(async () => {
      const p = await getPod('order');
      return statusOf(p, 'app')?.state.running ? p : undefined;
    });
    expect(initStatusOf(up, 'setup').state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    expect(initStatusOf(up, 'proxy')).toMatchObject({ started: true, restartCount: 0 });
    expect(initStatusOf(up, 'proxy').state.running).toBeDefined();
    expect(conditionOf(up, 'Initialized')?.status).toBe('True');
    const proxy = await runtimeTimes(proxyId);
    const setup = await runtimeTimes(idOf(initStatusOf(up, 'setup')));
    const app = await runtimeTimes(idOf(statusOf(up, 'app')));
    // setup was created only once the startup probe had succeeded, the app after setup had run
    expect(setup.createdAt).toBeGreaterThanOrEqual(startedAt);
    expect(proxy.startedAt).toBeLessThan(app.createdAt);
    expect(setup.createdAt).toBeLessThan(app.createdAt);
    // the sidecar's readiness holds the pod back, though the app is ready
    await until(async () => (statusOf(await getPod('order'), 'app')?.ready ? true : undefined));
    expect(conditionOf(await getPod('order'), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [proxy]',
    });
    await inContainer(proxyId, 'touch /tmp/ready');
    const ready = await until(async () => {
      const p = await getPod('order');
      return conditionOf(p, 'Ready')?.status === 'True' ? p : undefined;
    });
    expect(initStatusOf(ready, 'proxy')).toMatchObject({ started: true, ready: true });
    expect(ready.status.phase).toBe('Running');
  });

  it('finish their postStart hook before the next container starts', async () => {
    await createPod('hooked', {
      initContainers: [sidecar('proxy', { lifecycle: { postStart: { exec: { command: ['sleep', '2'] } } } })],
      containers: [{ name: 'app', image: busybox, command: run() }],
    });
    const up = await until(async () => {
      const p = await getPod('hooked');
      return statusOf(p, 'app')?.state.running ? p : undefined;
    });
    const proxy = await runtimeTimes(idOf(initStatusOf(up, 'proxy')));
    const app = await runtimeTimes(idOf(statusOf(up, 'app')));
    expect(app.createdAt - proxy.startedAt).toBeGreaterThanOrEqual(2000);
  });

  it('are restarted when their liveness probe fails, with kubelet’s init-container words', async () => {
    await createPod('unwell', {
      initContainers: [
        sidecar('proxy', {
          command: run('touch /tmp/alive'),
          livenessProbe: {
            exec: { command: ['test', '-f', '/tmp/alive'] },
            periodSeconds: 1,
            failureThreshold: 1,
          },
        }),
      ],
      containers: [{ name: 'app', image: busybox, command: run() }],
    });
    const before = await until(async () => {
      const p = await getPod('unwell');
      return statusOf(p, 'app')?.state.running ? p : undefined;
    });
    await inContainer(idOf(initStatusOf(before, 'proxy')), 'rm /tmp/alive');
    const after = await until(async () => {
      const p = await getPod('unwell');
      const s = initStatusOf(p, 'proxy');
      return s?.restartCount === 1 && s.state.running ? p : undefined;
    });
    expect(statusOf(after, 'app')).toMatchObject({
      containerID: statusOf(before, 'app').containerID,
      restartCount: 0,
    });
    await until(async () =>
      (await eventsOf('unwell')).includes('Killing: Init container proxy failed liveness probe')
        ? true
        : undefined,
    );
  });

  it('restart when they exit, with back-off, in a restartPolicy Never pod', async () => {
    await createPod('crashy', {
      restartPolicy: 'Never',
      initContainers: [sidecar('flaky', { command: ['sh', '-c', 'sleep 1; exit 3'] })],
      containers: [{ name: 'app', image: busybox, command: run() }],
    });
    const p = await until(
      async () => {
        const x = await getPod('crashy');
        const s = initStatusOf(x, 'flaky');
        return s?.restartCount >= 2 && statusOf(x, 'app')?.state.running ? x : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(initStatusOf(p, 'flaky').lastState.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(p.status.phase).toBe('Running');
    expect(statusOf(p, 'app').restartCount).toBe(0);
    // an app container that has run keeps the pod initialized while its sidecar restarts
    expect(conditionOf(p, 'Initialized')?.status).toBe('True');
    // the back-off shows between attempts
    await until(async () =>
      initStatusOf(await getPod('crashy'), 'flaky')?.state.waiting?.reason === 'CrashLoopBackOff'
        ? true
        : undefined,
    );
  });

  it('stop after the app containers on deletion, in reverse order of their declaration', async () => {
    const dir = join(hostDir, 'order');
    const note = (who: string) => `echo ${who} >> /shared/stopped;`;
    const shared = [{ name: 'shared', mountPath: '/shared' }];
    await createPod('stopping', {
      volumes: [{ name: 'shared', hostPath: { path: dir, type: 'DirectoryOrCreate' } }],
      initContainers: [
        sidecar('first', { command: run('true', note('first')), volumeMounts: shared }),
        sidecar('second', { command: run('true', note('second')), volumeMounts: shared }),
      ],
      containers: [
        {
          name: 'app',
          image: busybox,
          command: run('true', note('app')),
          volumeMounts: shared,
          // the app takes a while to stop: the sidecars must wait for it
          lifecycle: { preStop: { exec: { command: ['sleep', '2'] } } },
        },
      ],
    });
    await until(async () => ((await getPod('stopping')).status?.phase === 'Running' ? true : undefined));
    await until(async () => (statusOf(await getPod('stopping'), 'app')?.state.running ? true : undefined));
    await client.delete(Resources.Pod, 'default', 'stopping');
    await until(async () => {
      try {
        await getPod('stopping');
        return undefined;
      } catch {
        return true;
      }
    });
    expect(readFileSync(join(dir, 'stopped'), 'utf8')).toBe('app\nsecond\nfirst\n');
  });

  it('do not keep a job pod from completing: its app containers done, the sidecar is stopped and the pod Succeeded', async () => {
    await createPod('job', {
      restartPolicy: 'Never',
      initContainers: [sidecar('logger')],
      containers: [{ name: 'work', image: busybox, command: ['sh', '-c', 'sleep 2'] }],
    });
    const working = await until(async () => {
      const p = await getPod('job');
      return statusOf(p, 'work')?.state.running ? p : undefined;
    });
    expect(initStatusOf(working, 'logger').state.running).toBeDefined();
    const done = await until(async () => {
      const p = await getPod('job');
      return p.status?.phase === 'Succeeded' ? p : undefined;
    });
    expect(statusOf(done, 'work').state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    // stopped by the node (SIGTERM, its trap exits 0), not restarted
    expect(initStatusOf(done, 'logger').state.terminated).toMatchObject({ exitCode: 0 });
    expect(initStatusOf(done, 'logger').restartCount).toBe(0);
    expect(conditionOf(done, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    await new Promise((r) => setTimeout(r, 1500));
    const later = await getPod('job');
    expect(later.status.phase).toBe('Succeeded');
    expect(initStatusOf(later, 'logger').restartCount).toBe(0);
    expect((await cri.containerStatus(idOf(initStatusOf(later, 'logger')))).status?.state).toBe(
      'CONTAINER_EXITED',
    );
  });

  it('restart in place on an image change: same pod, new container, the app and a completed init container untouched', async () => {
    const created = await createPod('upgrade', {
      initContainers: [
        { name: 'setup', image: busybox, command: ['true'] },
        sidecar('proxy', { command: run('cat /etc/image-version') }),
      ],
      containers: [{ name: 'app', image: busybox, command: run() }],
    });
    const before = await until(async () => {
      const p = await getPod('upgrade');
      return conditionOf(p, 'Ready')?.status === 'True' ? p : undefined;
    });
    await client.jsonPatch(Resources.Pod, 'default', 'upgrade', [
      { op: 'replace', path: '/spec/initContainers/1/image', value: `${registry}/busybox:v2` },
    ]);
    const after = await until(async () => {
      const x = await getPod('upgrade');
      const s = initStatusOf(x, 'proxy');
      return s?.restartCount === 1 && s.state.running && conditionOf(x, 'Ready')?.status === 'True'
        ? x
        : undefined;
    });
    const proxy = initStatusOf(after, 'proxy');
    expect(proxy.containerID).not.toBe(initStatusOf(before, 'proxy').containerID);
    expect(proxy.image).toBe(`${registry}/busybox:v2`);
    expect(proxy.lastState.terminated).toMatchObject({
      containerID: initStatusOf(before, 'proxy').containerID,
    });
    expect(after.metadata?.uid).toBe(created.metadata!.uid);
    expect(after.status.podIP).toBe(before.status.podIP);
    expect(statusOf(after, 'app')).toMatchObject({
      containerID: statusOf(before, 'app').containerID,
      restartCount: 0,
    });
    expect(initStatusOf(after, 'setup')).toMatchObject({
      containerID: initStatusOf(before, 'setup').containerID,
      restartCount: 0,
    });
    await until(async () =>
      (await eventsOf('upgrade')).includes('Killing: Init container proxy definition changed')
        ? true
        : undefined,
    );
  });
});
