import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '@kruise/cri/client';
import { LocalNode } from '@kruise/local-node';
import { type KubeObject, Resources } from '@kruise/runtime';
import { startNodeRuntime } from '@kruise/stack/node-runtimes';
import { describe, expect, inject, it } from 'vitest';
import { useLocalNode } from '../support/local-node-env.ts';
import { until } from '../support/poll.ts';

const registry = inject('registry');
const env = useLocalNode('ln-net');

/** A pod serving its hostname and $POD_IP (from the downward API) over HTTP on port 8080, Ready through an httpGet probe. */
const webPod = (name: string, nodeName: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default' },
  spec: {
    nodeName,
    terminationGracePeriodSeconds: 1,
    containers: [
      {
        name: 'web',
        image: `${registry}/busybox:v1`,
        env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        command: [
          'sh',
          '-c',
          'trap \'exit 0\' TERM; mkdir -p /www && echo "$(hostname) $POD_IP" > /www/index.html && httpd -p 8080 -h /www; while true; do sleep 1 & wait $!; done',
        ],
        ports: [{ name: 'http', containerPort: 8080 }],
        readinessProbe: { httpGet: { path: '/index.html', port: 'http' }, periodSeconds: 1 },
      },
    ],
    ...extra,
  },
});
const ready = (p: KubeObject | undefined) =>
  p?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status === 'True' ? p : undefined;
const readyPod = (name: string) =>
  until(async () => ready(await env.client.get(Resources.Pod, 'default', name)));

describe('pod network', () => {
  it('gives each pod an IP of its own from the runtime: the same port in two pods, probes and env at that IP, the pod name as hostname; a hostNetwork pod has the node IP', async () => {
    for (const name of ['web-a', 'web-b']) await env.client.create(Resources.Pod, webPod(name, 'ln-net'));
    const [a, b] = [await readyPod('web-a'), await readyPod('web-b')];
    const node = await env.client.get(Resources.Node, undefined, 'ln-net');
    const nodeIP = node.status.addresses.find((x: { type: string }) => x.type === 'InternalIP').address;
    for (const p of [a, b]) {
      expect(p.status.podIP).toMatch(/^10\.88\.\d+\.\d+$/);
      expect(p.status.podIP).not.toBe(nodeIP);
      expect(p.status.podIPs).toEqual([{ ip: p.status.podIP }]);
      expect(p.status.hostIP).toBe(nodeIP);
      // both serve port 8080, each on its own address, and know it from the downward API
      const body = await (await fetch(`http://${p.status.podIP}:8080/index.html`)).text();
      expect(body).toBe(`${p.metadata!.name} ${p.status.podIP}\n`);
    }
    expect(a.status.podIP).not.toBe(b.status.podIP);

    await env.client.create(Resources.Pod, webPod('web-host', 'ln-net', { hostNetwork: true }));
    // (port 8080 on the node's address would clash with anything else there: only its status is read)
    const host = await until(async () => {
      const p = await env.client.get(Resources.Pod, 'default', 'web-host');
      return p.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
    });
    expect(host.status.podIP).toBe(nodeIP);
    await env.client.delete(Resources.Pod, 'default', 'web-host', { gracePeriodSeconds: 1 });
  }, 60_000);

  it('a runtime without a pod network: the Node is not Ready in kubelet’s words, a pod waits with NetworkNotReady, a hostNetwork pod runs', async () => {
    const runtime = startNodeRuntime(`${inject('criStackDir')}-nonet`, Number(registry.split(':').pop()), {
      podNetwork: false,
    });
    const cri = new CriClient(runtime.socket);
    const logs = mkdtempSync(join(tmpdir(), 'kruise-pod-logs-'));
    const node = new LocalNode({
      client: env.client,
      cri,
      nodeName: 'ln-nonet',
      podLogsDir: logs,
      retryMs: 500,
    });
    try {
      await node.start();
      const n = await env.client.get(Resources.Node, undefined, 'ln-nonet');
      expect(n.status.conditions.find((c: { type: string }) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'KubeletNotReady',
        message: expect.stringMatching(
          /^container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized/,
        ),
      });
      await env.client.create(Resources.Pod, webPod('no-net', 'ln-nonet'));
      await env.client.create(Resources.Pod, {
        metadata: { name: 'host-net', namespace: 'default' },
        spec: {
          nodeName: 'ln-nonet',
          hostNetwork: true,
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'app', image: `${registry}/busybox:v1`, command: ['sleep', '3600'] }],
        },
      });
      await until(async () => ready(await env.client.get(Resources.Pod, 'default', 'host-net')));
      const event = await until(async () =>
        (await env.client.list(Resources.Event, { namespace: 'default' })).items.find(
          (e: KubeObject) => e.involvedObject.name === 'no-net' && e.reason === 'NetworkNotReady',
        ),
      );
      expect(event.type).toBe('Warning');
      expect(event.message).toMatch(
        /^network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady/,
      );
      const waiting = await env.client.get(Resources.Pod, 'default', 'no-net');
      expect(waiting.status?.phase ?? 'Pending').toBe('Pending');
      expect(waiting.status?.podIP).toBeUndefined();
      expect((await cri.listPodSandbox()).items.map((s) => s.metadata?.name)).toEqual(['host-net']);
    } finally {
      for (const name of ['no-net', 'host-net'])
        await env.client
          .delete(Resources.Pod, 'default', name, { gracePeriodSeconds: 1 })
          .catch(() => undefined);
      await until(async () =>
        (await env.client.list(Resources.Pod, { namespace: 'default' })).items.some(
          (p: KubeObject) => p.spec.nodeName === 'ln-nonet',
        )
          ? undefined
          : true,
      );
      await node.stop();
      cri.close();
      runtime.down();
      rmSync(logs, { recursive: true, force: true });
    }
  }, 90_000);
});
