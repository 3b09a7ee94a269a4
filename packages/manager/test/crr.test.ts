import { KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { kubeTime } from '@kruise/kube-compat';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagerApp } from '../src/index.ts';
import { addNode, eventually, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
beforeAll(async () => {
  ({ cp, client, app } = await startEnv([], { crrResponseTimeoutMs: 1500 }));
  await addNode(client, 'n1');
});
afterAll(async () => {
  await app.stop();
  await cp.stop();
});

/** A pod on n1 whose status (written here in kubelet's place) shows running containers. */
async function pod(name: string, extra: Record<string, unknown> = {}): Promise<KubeObject> {
  await client.create(Resources.Pod, {
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'busybox' }], ...extra },
  });
  return client.mergePatchStatus(Resources.Pod, 'default', name, {
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'app',
          image: 'busybox',
          imageID: 'x',
          ready: true,
          restartCount: 0,
          containerID: `containerd://${name}-0`,
          state: { running: { startedAt: '2020-01-01T00:00:00Z' } },
        },
      ],
    },
  }) as Promise<KubeObject>;
}

const crr = (name: string, spec: Record<string, unknown>) =>
  client.create(KruiseResources.ContainerRecreateRequest, {
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'app' }], ...spec },
  });
const get = (name: string) => client.get(KruiseResources.ContainerRecreateRequest, 'default', name);

describe('ContainerRecreateRequest controller (manager)', () => {
  it('completes a request no daemon picks up with "daemon has not responded for a long time"', async () => {
    await pod('idle');
    await crr('idle', { podName: 'idle' });
    const done = await eventually(
      async () => ((await get('idle')).status?.phase === 'Completed' ? get('idle') : undefined),
      8000,
    );
    expect(done.status.message).toBe('daemon has not responded for a long time');
    // completed requests lose the active label, so daemons stop watching them
    await eventually(
      async () => (await get('idle')).metadata?.labels?.['crr.apps.kruise.io/active'] === undefined,
    );
  });

  it('mirrors recreated container statuses into sync-container-statuses while Recreating', async () => {
    await pod('sync');
    await crr('sync', { podName: 'sync' });
    await client.mergePatchStatus(KruiseResources.ContainerRecreateRequest, 'default', 'sync', {
      status: { phase: 'Recreating' },
    });
    await client.mergePatchStatus(Resources.Pod, 'default', 'sync', {
      status: {
        containerStatuses: [
          {
            name: 'app',
            image: 'busybox',
            imageID: 'x',
            ready: true,
            restartCount: 1,
            containerID: 'containerd://sync-1',
            state: {
              running: { startedAt: kubeTime(Date.now() + 2000) },
            },
          },
        ],
      },
    });
    const text = await eventually(
      async () => (await get('sync')).metadata?.annotations?.['crr.apps.kruise.io/sync-container-statuses'],
    );
    expect(JSON.parse(text)).toEqual([
      { name: 'app', ready: true, restartCount: 1, containerID: 'containerd://sync-1' },
    ]);
  });

  it('deletes a completed request after ttlSecondsAfterFinished', async () => {
    await pod('ttl');
    await crr('ttl', { podName: 'ttl', ttlSecondsAfterFinished: 1 });
    await client.mergePatchStatus(KruiseResources.ContainerRecreateRequest, 'default', 'ttl', {
      status: {
        phase: 'Completed',
        completionTime: kubeTime(),
        containerRecreateStates: [{ name: 'app', phase: 'Succeeded' }],
      },
    });
    await eventually(async () => {
      try {
        await get('ttl');
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    });
  });

  it('completes with "pod has gone" when the pod is replaced by one of the same name', async () => {
    await pod('replaced');
    await crr('replaced', { podName: 'replaced' });
    await client.mergePatchStatus(KruiseResources.ContainerRecreateRequest, 'default', 'replaced', {
      status: { phase: 'Recreating' },
    });
    await client.delete(Resources.Pod, 'default', 'replaced', { gracePeriodSeconds: 0 });
    await pod('replaced');
    const done = await eventually(async () =>
      (await get('replaced')).status?.phase === 'Completed' ? get('replaced') : undefined,
    );
    expect(done.status.message).toBe('pod has gone');
  });
});

describe('ContainerRecreateRequest webhook with KruiseDaemon off', () => {
  it('refuses every request with 403', async () => {
    const env = await startEnv(['--feature-gates=KruiseDaemon=false']);
    try {
      const err = await env.client
        .create(KruiseResources.ContainerRecreateRequest, {
          metadata: { name: 'x', namespace: 'default' },
          spec: { podName: 'p', containers: [{ name: 'app' }] },
        })
        .catch((e) => e);
      expect(err.code).toBe(403);
      expect(err.message).toBe(
        'admission webhook "mcontainerrecreaterequest.kb.io" denied the request: feature-gate KruiseDaemon is not enabled',
      );
    } finally {
      await env.app.stop();
      await env.cp.stop();
    }
  });
});
