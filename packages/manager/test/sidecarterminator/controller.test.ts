import { KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconciledOn } from '../../../../test/support/reconciled.ts';
import type { ManagerApp } from '../../src/index.ts';
import { trimmedPods } from '../../src/informers.ts';
import { addNode, eventually, startEnv } from '../env.ts';

const EXIT = { name: 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT', value: 'true' };
const IGNORE = { name: 'KRUISE_TERMINATE_SIDECAR_IGNORE_EXIT_CODE', value: 'true' };
const IMAGE = { name: 'KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT_WITH_IMAGE', value: 'quick-exit:v1' };
const CONTROLLER = 'sidecarterminator-controller';
const NS = 'default';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
beforeAll(async () => {
  ({ cp, client, app } = await startEnv(['--feature-gates=SidecarTerminator=true']));
  await addNode(client, 'n1');
  await addNode(client, 'vk1', { type: 'virtual-kubelet' });
});
afterAll(async () => {
  await app?.stop();
  await cp?.stop();
});

/** A container state as kubelet would report it: 'run', or a terminated exit code. */
type State = 'run' | number;

/** Creates a pod on `node` with containers `name: env`. */
const createPod = (
  name: string,
  restartPolicy: string,
  containers: Record<string, Container['env']>,
  more: { node?: string; initContainers?: Container[]; finalizers?: string[] } = {},
) =>
  client.create(Resources.Pod, {
    metadata: { name, namespace: NS, ...(more.finalizers ? { finalizers: more.finalizers } : {}) },
    spec: {
      nodeName: more.node ?? 'n1',
      restartPolicy,
      ...(more.initContainers ? { initContainers: more.initContainers } : {}),
      containers: Object.entries(containers).map(([c, env]) => ({
        name: c,
        image: 'busybox:v1',
        ...(env?.length ? { env } : {}),
      })),
    },
  } as KubeObject) as Promise<Pod>;

/** Plays kubelet: writes the containers' states (and the phase, Running unless given). */
const report = (name: string, states: Record<string, State>, phase = 'Running', extra: object = {}) =>
  client.mergePatchStatus(Resources.Pod, NS, name, {
    status: {
      phase,
      ...extra,
      containerStatuses: Object.entries(states).map(([c, s]) => ({
        name: c,
        image: 'busybox:v1',
        imageID: 'sha256:1',
        ready: s === 'run',
        restartCount: 0,
        containerID: `containerd://${name}-${c}`,
        state:
          s === 'run'
            ? { running: { startedAt: '2020-01-01T00:00:00Z' } }
            : { terminated: { exitCode: s, reason: s === 0 ? 'Completed' : 'Error' } },
      })),
    },
  }) as Promise<Pod>;

const crrOf = async (pod: Pod) =>
  client
    .get(KruiseResources.ContainerRecreateRequest, NS, `sidecar-termination-${pod.metadata!.uid}`)
    .catch(() => undefined);
const crrsOf = async (podName: string) =>
  (await client.list(KruiseResources.ContainerRecreateRequest, { namespace: NS })).items.filter(
    (c) => c.spec?.podName === podName,
  );
const eventsOf = async (podName: string) =>
  (await client.list(Resources.Event, { namespace: NS })).items.filter(
    (e: any) => e.involvedObject?.name === podName && e.reason === 'SidecarTerminator',
  ) as any[];
const getPod = (name: string) => client.get(Resources.Pod, NS, name) as Promise<Pod>;

/** Resolves once a reconcile of the pod that saw it as the API has it now has finished. */
const reconciled = (name: string) =>
  reconciledOn(app.controllers.get(CONTROLLER)!, `${NS}/${name}`, {
    informer: trimmedPods(app.manager),
    read: async () => [await client.get(Resources.Pod, NS, name)],
  });

describe('SidecarTerminator controller (embedded control plane)', () => {
  it('runs behind the SidecarTerminator gate', () => {
    expect(app.controllers.has(CONTROLLER)).toBe(true);
  });

  it('asks the daemon to stop the running sidecars of a Never pod whose main containers ended: the CRR and the event', async () => {
    const pod = await createPod('never', 'Never', { main: [], proxy: [EXIT], agent: [EXIT], plain: [] });
    await report('never', { main: 'run', proxy: 'run', agent: 'run', plain: 'run' });
    await report('never', { main: 1, proxy: 'run', agent: 'run', plain: 'run' });
    // `plain` (no mark) is a main container still running
    await reconciled('never');
    expect(await crrOf(pod)).toBeUndefined();
    await report('never', { main: 1, proxy: 'run', agent: 0, plain: 0 });
    const crr = await eventually(() => crrOf(pod));
    expect(crr.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Pod',
        name: 'never',
        uid: pod.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    // only the sidecar still running; the daemon's fields filled in by the CRR webhook
    expect(crr.spec.podName).toBe('never');
    expect(crr.spec.containers).toEqual([
      { name: 'proxy', statusContext: { containerID: 'containerd://never-proxy', restartCount: 0 } },
    ]);
    expect(crr.spec.strategy).toMatchObject({ forceRecreate: true, failurePolicy: 'Ignore' });
    expect(crr.metadata?.labels).toMatchObject({
      'crr.apps.kruise.io/pod-uid': pod.metadata!.uid,
      'crr.apps.kruise.io/node-name': 'n1',
    });
    const [event] = await eventually(async () => {
      const e = await eventsOf('never');
      return e.length ? e : undefined;
    });
    expect(event).toMatchObject({
      type: 'Normal',
      reason: 'SidecarTerminator',
      message: 'Kruise SidecarTerminator is trying to terminate sidecar [proxy] using crr',
      involvedObject: { kind: 'Pod', name: 'never', uid: pod.metadata!.uid },
    });
  });

  it('stops the sidecars of an OnFailure pod only once every main container succeeded', async () => {
    const pod = await createPod('onfailure', 'OnFailure', { main: [], proxy: [EXIT] });
    await report('onfailure', { main: 1, proxy: 'run' });
    await reconciled('onfailure');
    expect(await crrOf(pod)).toBeUndefined();
    await report('onfailure', { main: 0, proxy: 'run' });
    const crr = await eventually(() => crrOf(pod));
    expect(crr.spec.containers.map((c: any) => c.name)).toEqual(['proxy']);
  });

  it('creates one request per pod, however often the pod changes afterwards', async () => {
    const pod = await createPod('once', 'Never', { main: [], proxy: [EXIT] });
    await report('once', { main: 0, proxy: 'run' });
    const first = await eventually(() => crrOf(pod));
    const c = app.controllers.get(CONTROLLER)!;
    for (let i = 0; i < 5; i++) {
      const passes = c.counts.success;
      await client.mergePatch(Resources.Pod, NS, 'once', { metadata: { labels: { touched: `${i}` } } });
      await eventually(() => c.counts.success > passes);
    }
    await reconciled('once');
    const all = await crrsOf('once');
    expect(all.map((x) => x.metadata?.uid)).toEqual([first.metadata?.uid]);
    const events = await eventsOf('once');
    expect(events.map((e) => [e.message, e.count])).toEqual([
      ['Kruise SidecarTerminator is trying to terminate sidecar [proxy] using crr', 1],
    ]);
  });

  it('leaves alone Always pods, pending and deleting pods, running main containers and native sidecars', async () => {
    const skipped: Pod[] = [];
    skipped.push(await createPod('always', 'Always', { main: [], proxy: [EXIT] }));
    await report('always', { main: 0, proxy: 'run' });
    skipped.push(await createPod('pending', 'Never', { main: [], proxy: [EXIT] }));
    await report('pending', { main: 0, proxy: 'run' }, 'Pending');
    skipped.push(
      await createPod('deleting', 'Never', { main: [], proxy: [EXIT] }, { finalizers: ['example.io/hold'] }),
    );
    await client.delete(Resources.Pod, NS, 'deleting');
    await report('deleting', { main: 0, proxy: 'run' });
    skipped.push(await createPod('working', 'Never', { main: [], proxy: [EXIT] }));
    await report('working', { main: 'run', proxy: 'run' });
    skipped.push(
      await createPod(
        'native',
        'Never',
        { main: [] },
        {
          initContainers: [{ name: 'native', image: 'busybox:v1', restartPolicy: 'Always', env: [EXIT] }],
        },
      ),
    );
    await report('native', { main: 0 }, 'Running', {
      initContainerStatuses: [
        {
          name: 'native',
          image: 'busybox:v1',
          imageID: 'sha256:1',
          ready: true,
          restartCount: 0,
          containerID: 'containerd://native-native',
          state: { running: { startedAt: '2020-01-01T00:00:00Z' } },
        },
      ],
    });
    for (const p of skipped) {
      await reconciled(p.metadata!.name!);
      expect(await crrOf(p), p.metadata!.name).toBeUndefined();
    }
    await client.mergePatch(Resources.Pod, NS, 'deleting', { metadata: { finalizers: null } });
  });

  it('ends a pod with ignore-exit-code sidecars by its main containers: Succeeded, SidecarTerminated, then the CRR', async () => {
    const pod = await createPod('ignore', 'Never', { main: [], proxy: [EXIT, IGNORE] });
    await report('ignore', { main: 0, proxy: 'run' }, 'Running', {
      conditions: [{ type: 'Ready', status: 'False', reason: 'PodCompleted' }],
    });
    const ended = await eventually(async () => {
      const p = await getPod('ignore');
      return p.status?.phase === 'Succeeded' ? p : undefined;
    });
    const condition = ended.status?.conditions?.find((c) => c.type === 'SidecarTerminated');
    expect(condition).toMatchObject({ status: 'True', message: 'Terminated by Sidecar Terminator' });
    expect(Date.parse(condition!.lastTransitionTime!)).toBeGreaterThan(Date.now() - 60_000);
    // a strategic merge: kubelet's conditions are kept
    expect(ended.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('PodCompleted');
    // the CRR webhook accepts a request for a pod that SidecarTerminator ended
    const crr = await eventually(() => crrOf(pod));
    expect(crr.spec.containers.map((c: any) => c.name)).toEqual(['proxy']);
  });

  it('marks the pod Failed when a main container failed, whatever the sidecar does', async () => {
    await createPod('ignore-failed', 'Never', { main: [], proxy: [EXIT, IGNORE] });
    await report('ignore-failed', { main: 3, proxy: 'run' });
    const ended = await eventually(async () => {
      const p = await getPod('ignore-failed');
      return p.status?.phase === 'Failed' ? p : undefined;
    });
    expect(ended.status?.conditions?.map((c) => [c.type, c.status])).toEqual([['SidecarTerminated', 'True']]);
  });

  it('ends the pod only after the normal sidecars are done, and asks for the normal ones first', async () => {
    const pod = await createPod('mixed', 'Never', { main: [], proxy: [EXIT], logs: [EXIT, IGNORE] });
    await report('mixed', { main: 0, proxy: 'run', logs: 'run' });
    const crr = await eventually(() => crrOf(pod));
    expect(crr.spec.containers.map((c: any) => c.name)).toEqual(['proxy']);
    await reconciled('mixed');
    expect((await getPod('mixed')).status?.phase).toBe('Running');
    // the daemon stopped proxy (exit code 143 on SIGTERM without a handler)
    await report('mixed', { main: 0, proxy: 143, logs: 'run' });
    await eventually(async () => (await getPod('mixed')).status?.phase === 'Succeeded');
    // one request per pod, as upstream: the ignore-exit-code sidecar is not asked for again
    expect((await crrsOf('mixed')).length).toBe(1);
  });

  it('replaces the image of a sidecar on a virtual-kubelet node instead of asking the daemon', async () => {
    const pod = await createPod('vk', 'Never', { main: [], proxy: [IMAGE], other: [EXIT] }, { node: 'vk1' });
    await report('vk', { main: 0, proxy: 'run', other: 'run' });
    const updated = await eventually(async () => {
      const p = await getPod('vk');
      return p.spec?.containers.find((c) => c.name === 'proxy')?.image === 'quick-exit:v1' ? p : undefined;
    });
    // only marked sidecars change; on a virtual kubelet KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT alone does nothing
    expect(updated.spec?.containers.map((c) => c.image)).toEqual([
      'busybox:v1',
      'quick-exit:v1',
      'busybox:v1',
    ]);
    const [event] = await eventually(async () => {
      const e = await eventsOf('vk');
      return e.length ? e : undefined;
    });
    expect(event.message).toBe(
      'Kruise SidecarTerminator is trying to terminate sidecar [proxy] using in-place update',
    );
    await reconciled('vk');
    expect(await crrOf(pod)).toBeUndefined();
  });
});

describe('SidecarTerminator gate', () => {
  it('is off by default, and KruiseDaemon=false forces it off', async () => {
    for (const gates of ['', 'KruiseDaemon=false,SidecarTerminator=true']) {
      const env = await startEnv(gates ? [`--feature-gates=${gates}`] : []);
      try {
        expect(env.app.controllers.has(CONTROLLER), gates).toBe(false);
        expect(env.app.controllers.has('containerrecreaterequest')).toBe(!gates);
      } finally {
        await env.app.stop();
        await env.cp.stop();
      }
    }
  });
});
