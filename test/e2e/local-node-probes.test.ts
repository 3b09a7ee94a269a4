import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { CriClient } from '@kruise/cri/client';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { freePort } from '@kruise/stack/free-port';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { podLog } from '../support/pod-log.ts';
import { until } from '../support/poll.ts';

const registry = inject('registry');
const env = useLocalNode('ln-probes');
let client: KubeClient;
let cri: CriClient;
beforeAll(() => {
  ({ client, cri } = env);
});

const getPod = (name: string) => client.get(Resources.Pod, 'default', name);
const statusOf = (p: KubeObject, c: string) => p.status?.containerStatuses?.find((s: any) => s.name === c);
const podReady = (p: KubeObject) => p.status?.conditions?.find((c: any) => c.type === 'Ready');
const fast = { periodSeconds: 1, failureThreshold: 1, timeoutSeconds: 1 };
/**
 * A liveness probe that tolerates a slow start (httpd may listen a moment after the container runs,
 * longer on a loaded machine) while still restarting within a few seconds once /healthz goes.
 */
const tolerant = { periodSeconds: 1, failureThreshold: 3, timeoutSeconds: 2 };
const run = (script: string) => ['sh', '-c', `trap 'exit 0' TERM; ${script}; while true; do sleep 0.2; done`];
/** Runs a shell command in the pod's container through CRI (as a user's kubectl exec would). */
const inContainer = async (pod: string, container: string, script: string) => {
  const id = statusOf(await getPod(pod), container).containerID.replace('containerd://', '');
  const res = await cri.execSync(id, ['sh', '-c', script], 5);
  expect(res.exitCode).toBe(0);
};
/** Creates a pod on the probes node with these containers (busybox, quick to stop) and `extra` spec fields. */
const createPod = (
  name: string,
  containers: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
) =>
  client.create(Resources.Pod, {
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: 'ln-probes',
      terminationGracePeriodSeconds: 2,
      containers: containers.map((c) => ({ image: `${registry}/busybox:v1`, ...c })),
      ...extra,
    },
  });
const eventsOf = async (pod: string) =>
  (await client.list(Resources.Event, { namespace: 'default' })).items
    .filter((e: any) => e.involvedObject.name === pod)
    .map((e: any) => `${e.reason}: ${e.message}`);
/** How many probes of the pod failed with a message starting so: kubelet's Unhealthy events, with their counts. */
const failures = async (pod: string, message: string) =>
  (await client.list(Resources.Event, { namespace: 'default' })).items
    .filter(
      (e: any) => e.involvedObject.name === pod && e.reason === 'Unhealthy' && e.message.startsWith(message),
    )
    .reduce((n: number, e: any) => n + (e.count ?? 1), 0);
/** The requests the pod's current `web` container answered 200 (its httpd -vv logs each response). */
const served = async (pod: string) =>
  (await podLog(client, pod, { container: 'web' })).split('\n').filter((l) => l.endsWith('response:200'))
    .length;
/** Waits until the pod has each of these events (the recorder writes them a moment after the status). */
const expectEvents = (pod: string, wanted: string[]) =>
  until(async () => {
    const events = await eventsOf(pod);
    return wanted.every((w) => events.includes(w)) ? true : undefined;
  }).catch(async (err) => {
    expect(await eventsOf(pod)).toEqual(expect.arrayContaining(wanted));
    throw err;
  });

describe('probes', () => {
  it('exec readiness drives the container and the pod Ready; startup holds readiness back; tcpSocket readiness follows a listener', async () => {
    const tcpPort = await freePort();
    await createPod('readyz', [
      {
        name: 'app',
        command: run('true'),
        startupProbe: {
          exec: { command: ['test', '-f', '/tmp/started'] },
          periodSeconds: 1,
          failureThreshold: 100,
        },
        readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, ...fast },
      },
      {
        name: 'tcp',
        command: run('mkdir -p /www'),
        readinessProbe: { tcpSocket: { port: tcpPort }, ...fast },
      },
    ]);
    const running = await until(async () => {
      const p = await getPod('readyz');
      return statusOf(p, 'app')?.state.running && statusOf(p, 'tcp')?.state.running ? p : undefined;
    });
    expect(statusOf(running, 'app')).toMatchObject({ started: false, ready: false });
    expect(statusOf(running, 'tcp')).toMatchObject({ started: true, ready: false });
    // Ready before started is impossible: the readiness file exists, the startup probe still fails.
    await inContainer('readyz', 'app', 'echo ok > /tmp/ready');
    // The marker: two more startup probe failures, so the prober has run a whole period since.
    const failed = await failures('readyz', 'Startup probe failed');
    await until(async () => (await failures('readyz', 'Startup probe failed')) >= failed + 2);
    expect(statusOf(await getPod('readyz'), 'app')).toMatchObject({ started: false, ready: false });
    // nor did its readiness probe run before, while the file was missing
    expect(await failures('readyz', 'Readiness probe failed: cat')).toBe(0);
    await inContainer('readyz', 'app', 'touch /tmp/started');
    await until(async () => (statusOf(await getPod('readyz'), 'app')?.ready ? true : undefined));
    expect(statusOf(await getPod('readyz'), 'app').started).toBe(true);
    expect(podReady(await getPod('readyz'))).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [tcp]',
    });
    await inContainer('readyz', 'tcp', `httpd -p ${tcpPort} -h /www`);
    await until(async () => (podReady(await getPod('readyz'))?.status === 'True' ? true : undefined));
    // Failing again: readiness off, the container keeps running (no restart).
    await inContainer('readyz', 'app', 'rm /tmp/ready');
    await until(async () => (statusOf(await getPod('readyz'), 'app')?.ready === false ? true : undefined));
    await inContainer('readyz', 'tcp', 'killall httpd');
    const p = await until(async () => {
      const x = await getPod('readyz');
      return statusOf(x, 'tcp')?.ready === false ? x : undefined;
    });
    expect(podReady(p)).toMatchObject({
      status: 'False',
      message: 'containers with unready status: [app tcp]',
    });
    expect(statusOf(p, 'app').restartCount).toBe(0);
    // the tcpSocket probe dials the pod's own IP, where the container listened
    await expectEvents('readyz', [
      "Unhealthy: Readiness probe failed: cat: can't open '/tmp/ready': No such file or directory\n",
      `Unhealthy: Readiness probe failed: dial tcp ${p.status.podIP}:${tcpPort}: connect: connection refused`,
    ]);
  }, 60_000);

  it('httpGet liveness failure restarts the container with kubelet’s event and message; it recovers', async () => {
    const port = await freePort();
    await createPod('livez', [
      {
        name: 'web',
        command: run(`mkdir -p /www && echo ok > /www/healthz && (httpd -f -vv -p ${port} -h /www &)`),
        livenessProbe: { httpGet: { path: '/healthz', port }, ...tolerant },
      },
    ]);
    const first = await until(async () => {
      const s = statusOf(await getPod('livez'), 'web');
      return s?.state.running ? s : undefined;
    });
    // The marker: the container answered more liveness probes than the failures a restart needs.
    await until(async () => (await served('livez')) > tolerant.failureThreshold);
    expect(statusOf(await getPod('livez'), 'web').restartCount).toBe(0);
    await inContainer('livez', 'web', 'rm /www/healthz');
    const second = await until(async () => {
      const s = statusOf(await getPod('livez'), 'web');
      return s?.restartCount === 1 && s.state.running ? s : undefined;
    });
    expect(second.containerID).not.toBe(first.containerID);
    await expectEvents('livez', [
      'Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 404',
      'Killing: Container web failed liveness probe, will be restarted',
    ]);
    // The new container serves /healthz again: it gets ready and answers more probes than the
    // failures a restart would need; no further restart follows.
    await until(async () => (statusOf(await getPod('livez'), 'web')?.ready ? true : undefined));
    await until(async () => (await served('livez')) > tolerant.failureThreshold);
    expect(statusOf(await getPod('livez'), 'web')).toMatchObject({ restartCount: 1, ready: true });
  }, 60_000);

  it('grpc readiness follows grpc.health.v1 (host network: a health server on the host port)', async () => {
    const port = await freePort();
    let serving = 2; // NOT_SERVING
    const server = new Server();
    server.addService(
      {
        Check: {
          path: '/grpc.health.v1.Health/Check',
          requestStream: false,
          responseStream: false,
          requestSerialize: (b: Buffer) => b,
          requestDeserialize: (b: Buffer) => b,
          responseSerialize: (s: number) => Buffer.from([0x08, s]),
          responseDeserialize: (b: Buffer) => b[1] ?? 0,
        },
      },
      { Check: (_call: unknown, cb: (e: null, v: number) => void) => cb(null, serving) },
    );
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (e) =>
        e ? reject(e) : resolve(),
      ),
    );
    try {
      await createPod(
        'grpcz',
        [
          {
            name: 'app',
            command: run('true'),
            readinessProbe: { grpc: { port }, ...fast },
          },
        ],
        { hostNetwork: true },
      );
      await until(async () => (statusOf(await getPod('grpcz'), 'app')?.state.running ? true : undefined));
      await until(async () =>
        (await eventsOf('grpcz')).includes(
          'Unhealthy: Readiness probe failed: service unhealthy (responded with "NOT_SERVING")',
        )
          ? true
          : undefined,
      );
      expect(statusOf(await getPod('grpcz'), 'app').ready).toBe(false);
      serving = 1;
      await until(async () => (podReady(await getPod('grpcz'))?.status === 'True' ? true : undefined));
    } finally {
      server.forceShutdown();
    }
  }, 60_000);
});
