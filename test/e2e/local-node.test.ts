import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { CriClient } from '@kruise/cri/client';
import { formatKubeletContainerHash, kubeletContainerHash } from '@kruise/kube-compat';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { podLog } from '../support/pod-log.ts';
import { until } from '../support/poll.ts';
import { reconciledOn } from '../support/reconciled.ts';

const registry = inject('registry');
// container GC each second (kubelet: each minute), so a test sees what it keeps and removes
const env = useLocalNode('ln-1', { containerGcIntervalMs: 1000 });
let client: KubeClient;
let cri: CriClient;
let podLogsDir: string;
beforeAll(() => {
  ({ client, cri, podLogsDir } = env);
});

/** A shell loop that exits at once on SIGTERM (busybox sh as PID 1 ignores it otherwise). */
const loop = ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.2; done"];

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default' },
  spec: {
    nodeName: 'ln-1',
    terminationGracePeriodSeconds: 5,
    containers: [
      { name: 'app', image: `${registry}/busybox:v1`, command: loop },
      { name: 'sidecar', image: `${registry}/busybox:v2`, command: loop },
    ],
    ...extra,
  },
});

const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const statusOf = (p: KubeObject, c: string) => p.status?.containerStatuses?.find((s: any) => s.name === c);

describe('local node', () => {
  it('registers a Ready Node with the runtime version', async () => {
    const n = await client.get(Resources.Node, undefined, 'ln-1');
    expect(n.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    expect(n.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    expect(n.metadata?.labels?.['kubernetes.io/hostname']).toBe('ln-1');
    expect(n.status.nodeInfo.kubeletVersion).toMatch(/^v1\.33\.\d+/);
  });

  it('runs a two-container pod with kubelet labels and reports it Running and Ready', async () => {
    await client.create(Resources.Pod, pod('two'));
    const p = await until(async () => {
      const x = await getPod('two');
      return x.status?.phase === 'Running' &&
        x.status.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True'
        ? x
        : undefined;
    });
    const app = statusOf(p, 'app');
    expect(app.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(app.restartCount).toBe(0);
    expect(app.state.running.startedAt).toMatch(/Z$/);
    const id = app.containerID.replace('containerd://', '');
    const { status } = await cri.containerStatus(id);
    expect(status?.labels).toMatchObject({
      'io.kubernetes.pod.uid': p.metadata?.uid,
      'io.kubernetes.pod.name': 'two',
      'io.kubernetes.pod.namespace': 'default',
      'io.kubernetes.container.name': 'app',
    });
    expect(status?.annotations['io.kubernetes.container.restartCount']).toBe('0');
    expect(status?.annotations['io.kubernetes.pod.terminationGracePeriod']).toBe('5');
  });

  it('restarts a stopped container with attempt + 1 and reports lastState', async () => {
    const before = statusOf(await getPod('two'), 'app');
    await cri.stopContainer(before.containerID.replace('containerd://', ''), 2);
    const after = await until(async () => {
      const s = statusOf(await getPod('two'), 'app');
      return s?.restartCount === 1 && s.state.running ? s : undefined;
    });
    expect(after.containerID).not.toBe(before.containerID);
    expect(after.lastState.terminated).toMatchObject({ exitCode: 0, containerID: before.containerID });
    expect(statusOf(await getPod('two'), 'sidecar').restartCount).toBe(0);
    const { status } = await cri.containerStatus(after.containerID.replace('containerd://', ''));
    expect(status?.annotations['io.kubernetes.container.restartCount']).toBe('1');
    // the old container stays, exited (the container GC keeps the newest dead one: see the image change below)
    const previous = await cri.containerStatus(before.containerID.replace('containerd://', ''));
    expect(previous.status?.state).toBe('CONTAINER_EXITED');
  });

  it("restarts a running container whose image changed, as kubelet: preStop, same pod, restartCount + 1, the running image's ID", async () => {
    const spec = pod('upd');
    spec.spec.containers[0]!.command = [
      'sh',
      '-c',
      "trap 'exit 0' TERM; cat /etc/image-version; while true; do sleep 0.2; done",
    ];
    (spec.spec.containers[0] as any).lifecycle = {
      preStop: { exec: { command: ['sh', '-c', 'echo prestop-ran > /proc/1/fd/1'] } },
    };
    const created = await client.create(Resources.Pod, spec);
    const first = await until(async () => {
      const s = statusOf(await getPod('upd'), 'app');
      return s?.state.running ? s : undefined;
    });
    expect(first.image).toBe(`${registry}/busybox:v1`);
    expect(first.imageID).toMatch(new RegExp(`^${registry}/busybox@sha256:[0-9a-f]{64}$`));
    const sidecarBefore = statusOf(await getPod('upd'), 'sidecar');
    const setImage = async (image: string) => {
      const p = await getPod('upd');
      p.spec.containers[0].image = image;
      await client.update(Resources.Pod, p);
    };
    await setImage(`${registry}/busybox:v2`);
    const second = await until(async () => {
      const s = statusOf(await getPod('upd'), 'app');
      return s?.restartCount === 1 && s.state.running ? s : undefined;
    });
    const p = await getPod('upd');
    expect(p.metadata?.uid).toBe(created.metadata?.uid);
    expect(second.containerID).not.toBe(first.containerID);
    expect(second.image).toBe(`${registry}/busybox:v2`);
    expect(second.imageID).toMatch(new RegExp(`^${registry}/busybox@sha256:[0-9a-f]{64}$`));
    expect(second.imageID).not.toBe(first.imageID);
    expect(second.lastState.terminated).toMatchObject({ exitCode: 0, containerID: first.containerID });
    // the other container is left alone
    expect(statusOf(p, 'sidecar').containerID).toBe(sidecarBefore.containerID);
    // the new container runs the new image and carries kubelet's 1.33 hash of name and image
    await until(async () =>
      (await podLog(client, 'upd', { container: 'app' })) === 'v2\n' ? true : undefined,
    );
    // preStop ran in the old container before it was stopped
    expect(await podLog(client, 'upd', { container: 'app', previous: true })).toBe('v1\nprestop-ran\n');
    const { status } = await cri.containerStatus(second.containerID.replace('containerd://', ''));
    expect(status?.annotations['io.kubernetes.container.hash']).toBe(
      formatKubeletContainerHash(kubeletContainerHash({ name: 'app', image: `${registry}/busybox:v2` })),
    );
    expect(status?.annotations['io.kubernetes.container.restartCount']).toBe('1');
    const events = (await client.list(Resources.Event, { namespace: 'default' })).items.filter(
      (e: any) => e.involvedObject.uid === created.metadata?.uid,
    );
    expect(events.map((e: any) => [e.reason, e.message, e.source?.component])).toContainEqual([
      'Killing',
      'Container app definition changed, will be restarted',
      'kubelet',
    ]);

    // A second tag of the same image (same digest): the container restarts, the imageID stays.
    execFileSync('skopeo', [
      'copy',
      '--quiet',
      '--src-tls-verify=false',
      '--dest-tls-verify=false',
      `docker://${registry}/busybox:v2`,
      `docker://${registry}/busybox:v2-again`,
    ]);
    await setImage(`${registry}/busybox:v2-again`);
    const third = await until(async () => {
      const s = statusOf(await getPod('upd'), 'app');
      return s?.restartCount === 2 && s.state.running ? s : undefined;
    });
    expect(third.containerID).not.toBe(second.containerID);
    expect(third.image).toBe(`${registry}/busybox:v2-again`);
    expect(third.imageID).toBe(second.imageID);
    // kubelet's container GC: the newest dead instance stays beside the running one, older ones go
    const appContainers = async () =>
      (
        await cri.listContainers({
          labelSelector: {
            'io.kubernetes.pod.uid': created.metadata!.uid!,
            'io.kubernetes.container.name': 'app',
          },
        })
      ).containers.map((c) => [`containerd://${c.id}`, c.state] as const);
    await until(async () => ((await appContainers()).length === 2 ? true : undefined), 10_000);
    // the collection that removed the oldest one saw the newer dead one too, and kept it
    expect(new Map(await appContainers())).toEqual(
      new Map([
        [second.containerID, 'CONTAINER_EXITED'],
        [third.containerID, 'CONTAINER_RUNNING'],
      ]),
    );
  }, 60_000);

  it('resolves env as kubelet at each start: a label read again after a label change and a restart; a missing ConfigMap key blocks the container until it appears', async () => {
    const spec = pod('envy');
    spec.spec.containers = [
      {
        name: 'app',
        image: `${registry}/busybox:v1`,
        command: [
          'sh',
          '-c',
          'echo "$(GREETING) track=$TRACK color=$COLOR pod=$POD"; trap \'exit 0\' TERM; while true; do sleep 0.2; done',
        ],
        env: [
          { name: 'TRACK', valueFrom: { fieldRef: { fieldPath: "metadata.labels['track']" } } },
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'COLOR', valueFrom: { configMapKeyRef: { name: 'envy-settings', key: 'color' } } },
          { name: 'GREETING', value: 'hello-$(POD)' },
        ],
      } as any,
    ];
    (spec.metadata as any).labels = { track: 'stable' };
    await client.create(Resources.Pod, spec);
    const waiting = async (message: string) =>
      until(async () => {
        const s = statusOf(await getPod('envy'), 'app');
        return s?.state.waiting?.reason === 'CreateContainerConfigError' &&
          s.state.waiting.message === message
          ? s
          : undefined;
      });
    await waiting('configmap "envy-settings" not found');
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'envy-settings', namespace: 'default' },
      data: { other: 'x' },
    });
    await waiting("couldn't find key color in ConfigMap default/envy-settings");
    await client.mergePatch(Resources.ConfigMap, 'default', 'envy-settings', { data: { color: 'blue' } });
    const first = await until(async () => {
      const s = statusOf(await getPod('envy'), 'app');
      return s?.state.running ? s : undefined;
    });
    expect(first.restartCount).toBe(0);
    await until(async () =>
      (await podLog(client, 'envy', { container: 'app' })) === 'hello-envy track=stable color=blue pod=envy\n'
        ? true
        : undefined,
    );
    const events = (await client.list(Resources.Event, { namespace: 'default' })).items.filter(
      (e: any) => e.involvedObject.name === 'envy' && e.reason === 'Failed',
    );
    expect(events.map((e: any) => e.message)).toContain(
      "Error: couldn't find key color in ConfigMap default/envy-settings",
    );

    // A label change alone changes nothing; the next start reads the new value.
    await client.mergePatch(Resources.Pod, 'default', 'envy', { metadata: { labels: { track: 'canary' } } });
    // the marker: a sync of the pod that saw the new label has finished
    await reconciledOn(env.node.controller, 'default/envy', {
      informer: env.node.pods,
      read: async () => [await getPod('envy')],
    });
    expect(statusOf(await getPod('envy'), 'app').containerID).toBe(first.containerID);
    await cri.stopContainer(first.containerID.replace('containerd://', ''), 2);
    await until(async () => (statusOf(await getPod('envy'), 'app')?.restartCount === 1 ? true : undefined));
    await until(async () =>
      (await podLog(client, 'envy', { container: 'app' })) === 'hello-envy track=canary color=blue pod=envy\n'
        ? true
        : undefined,
    );
  }, 60_000);

  it('serves kubectl logs through the API server: current, previous, tail, timestamps, follow; errors as kube-apiserver', async () => {
    const talk = pod('talk');
    talk.spec.containers[0]!.command = [
      'sh',
      '-c',
      "echo one; echo two; sleep 3; echo three; trap 'echo bye; exit 0' TERM; while true; do sleep 0.2; done",
    ];
    const created = await client.create(Resources.Pod, talk);
    await until(async () =>
      (await podLog(client, 'talk', { container: 'app' })) === 'one\ntwo\n' ? true : undefined,
    );
    // Follow from before "three" is written: the stream delivers it, then ends once the container is replaced.
    const controller = new AbortController();
    const stream = await client.open('GET', '/api/v1/namespaces/default/pods/talk/log', {
      query: { container: 'app', follow: true },
      signal: controller.signal,
    });
    let followed = '';
    const ended = (async () => {
      for await (const chunk of stream) followed += chunk;
      return 'ended';
    })().catch((err: Error) => `failed: ${err.message}`);
    await until(() => (followed.includes('three') ? true : undefined), 10_000);
    expect(followed).toBe('one\ntwo\nthree\n');
    const first = statusOf(await getPod('talk'), 'app');
    await cri.stopContainer(first.containerID.replace('containerd://', ''), 2);
    await until(async () => (statusOf(await getPod('talk'), 'app')?.restartCount === 1 ? true : undefined));
    // The server ends the stream by itself once the followed container has exited (not our abort).
    const outcome = await Promise.race([ended, new Promise((r) => setTimeout(() => r('still open'), 5000))]);
    controller.abort();
    expect(outcome).toBe('ended');
    expect(followed).toBe('one\ntwo\nthree\nbye\n');

    const previous = await podLog(client, 'talk', { container: 'app', previous: true, timestamps: true });
    expect(previous).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z one\n\S+ two\n\S+ three\n\S+ bye\n$/);
    expect(await podLog(client, 'talk', { container: 'app', previous: true, tailLines: 1 })).toBe('bye\n');
    expect(await podLog(client, 'talk', { container: 'app', previous: true, limitBytes: 6 })).toBe('one\ntw');
    await until(async () =>
      (await podLog(client, 'talk', { container: 'app' })).startsWith('one\ntwo\n') ? true : undefined,
    );
    await expect(podLog(client, 'talk', {})).rejects.toThrow(
      '400 a container name must be specified for pod talk, choose one of: [app sidecar]',
    );
    await expect(podLog(client, 'talk', { container: 'nope' })).rejects.toThrow(
      '400 container nope is not valid for pod talk',
    );
    await expect(podLog(client, 'talk', { container: 'sidecar', previous: true })).rejects.toThrow(
      '400 previous terminated container "sidecar" in pod "talk" not found',
    );
    await expect(podLog(client, 'talk', { container: 'app', tailLines: -1 })).rejects.toThrow(
      '422 PodLogOptions "talk" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
    );
    // The pod's logs go with it.
    await client.delete(Resources.Pod, 'default', 'talk', { gracePeriodSeconds: 1 });
    await until(() =>
      readdirSync(podLogsDir).some((d) => d.endsWith(created.metadata!.uid!)) ? undefined : true,
    );
  }, 60_000);

  it('keeps a pod with the KruisePodReady gate unready until the condition is True', async () => {
    await client.create(
      Resources.Pod,
      pod('gated', { readinessGates: [{ conditionType: 'KruisePodReady' }] }),
    );
    const p = await until(async () => {
      const x = await getPod('gated');
      return x.status?.conditions?.find((c: any) => c.type === 'ContainersReady')?.status === 'True'
        ? x
        : undefined;
    });
    // kubelet's words for a gate with no condition, then for one that is not True
    expect(p.status.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'corresponding condition of pod readiness gate "KruisePodReady" does not exist.',
    });
    const gate = (status: string) =>
      client.request('PATCH', '/api/v1/namespaces/default/pods/gated/status', {
        body: { status: { conditions: [{ type: 'KruisePodReady', status }] } },
        contentType: 'application/strategic-merge-patch+json',
      });
    await gate('False');
    await until(async () =>
      (await getPod('gated')).status.conditions.find((c: any) => c.type === 'Ready')?.message ===
      'the status of pod readiness gate "KruisePodReady" is not "True", but False'
        ? true
        : undefined,
    );
    await gate('True');
    await until(
      async () =>
        (await getPod('gated')).status.conditions.find((c: any) => c.type === 'Ready')?.status === 'True',
    );
  });

  it('runs postStart hooks (httpGet, then exec) before the next container starts, and reports a container ready only after its hook', async () => {
    let release: () => void = () => undefined;
    const hooks: { path: string; header?: string }[] = [];
    const server = createServer((req, res) => {
      hooks.push({ path: req.url ?? '', header: req.headers['x-hook'] as string | undefined });
      release = () => {
        if (!res.headersSent) res.writeHead(200).end();
      };
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      // in the host network, so the hook reaches this test's server on the node's 127.0.0.1
      const spec = pod('hooked', { hostNetwork: true });
      Object.assign(spec.spec.containers[0]!, {
        ports: [{ name: 'hook', containerPort: port }],
        lifecycle: {
          postStart: {
            httpGet: { path: '/started', port: 'hook', httpHeaders: [{ name: 'X-Hook', value: 'app' }] },
          },
        },
      });
      Object.assign(spec.spec.containers[1]!, {
        lifecycle: { postStart: { exec: { command: ['sh', '-c', 'echo poststart-ran > /proc/1/fd/1'] } } },
      });
      const created = await client.create(Resources.Pod, spec);
      const containersOf = async () =>
        (
          await cri.listContainers({ labelSelector: { 'io.kubernetes.pod.uid': created.metadata!.uid! } })
        ).containers.map((c) => c.metadata?.name);
      // The app's hook is waiting for our answer: the app runs, not ready.
      await until(() => (hooks.length === 1 ? true : undefined));
      expect(hooks[0]).toEqual({ path: '/started', header: 'app' });
      expect(await containersOf()).toContain('app');
      expect(statusOf(await getPod('hooked'), 'app')?.ready ?? false).toBe(false);
      const answeredAt = Date.now();
      release();
      const p = await until(async () => {
        const x = await getPod('hooked');
        return statusOf(x, 'app')?.ready && statusOf(x, 'sidecar')?.ready ? x : undefined;
      });
      // the sidecar was created only once the hook had its answer (containerd's clock is this machine's)
      const sidecar = await cri.containerStatus(
        statusOf(p, 'sidecar').containerID.replace('containerd://', ''),
      );
      expect(Number(BigInt(sidecar.status!.createdAt) / 1_000_000n)).toBeGreaterThanOrEqual(answeredAt);
      expect(await podLog(client, 'hooked', { container: 'sidecar' })).toBe('poststart-ran\n');
    } finally {
      release();
      server.close();
    }
  });

  it('deletes a pod gracefully: preStop runs in the container before it is stopped, containers stop, the pod goes away', async () => {
    const spec = pod('bye');
    spec.spec.containers[0]!.command = [
      'sh',
      '-c',
      "echo up; trap 'echo bye; exit 0' TERM; while true; do sleep 0.2; done",
    ];
    (spec.spec.containers[0] as any).lifecycle = {
      preStop: { exec: { command: ['sh', '-c', 'echo prestop-ran > /proc/1/fd/1; sleep 1'] } },
    };
    await client.create(Resources.Pod, spec);
    const p = await until(async () =>
      (await getPod('bye')).status?.phase === 'Running' ? getPod('bye') : undefined,
    );
    await until(async () =>
      (await podLog(client, 'bye', { container: 'app' })) === 'up\n' ? true : undefined,
    );
    // Follow the app's log through the deletion: the hook's line, then the container's own on SIGTERM.
    const controller = new AbortController();
    const stream = await client.open('GET', '/api/v1/namespaces/default/pods/bye/log', {
      query: { container: 'app', follow: true },
      signal: controller.signal,
    });
    let followed = '';
    void (async () => {
      for await (const chunk of stream) followed += chunk;
    })().catch(() => undefined);
    const started = Date.now();
    await client.delete(Resources.Pod, 'default', 'bye');
    await until(() => (followed.includes('bye\n') ? true : undefined), 15_000);
    controller.abort();
    expect(followed).toBe('up\nprestop-ran\nbye\n');
    await until(async () => {
      try {
        await getPod('bye');
        return undefined;
      } catch {
        return true;
      }
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const { containers } = await cri.listContainers({
      labelSelector: { 'io.kubernetes.pod.uid': p.metadata?.uid },
    });
    expect(containers).toEqual([]);
  });
});
