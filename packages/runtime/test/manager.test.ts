import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller, type KubeClient, Manager, objectKey, Resources } from '../src/index.ts';
import { eventually, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
beforeAll(async () => ({ cp, client } = await startEnv()));
afterAll(() => cp.stop());

/** A manager whose one controller counts ConfigMaps it reconciles. */
function makeManager(identity: string) {
  const manager = new Manager({
    client,
    healthProbeAddr: '127.0.0.1:0',
    metricsAddr: '127.0.0.1:0',
    gracefulShutdownMs: 5000,
    leaderElection: {
      namespace: 'default',
      name: 'test-manager',
      identity,
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 250,
    },
  });
  const reconciled: string[] = [];
  const controller = new Controller({
    name: `configmaps-${identity}`,
    metrics: manager.metrics,
    reconcile: async (_ctx, key) => {
      reconciled.push(key);
    },
  });
  const informer = manager.informers.informerFor({ resource: Resources.ConfigMap, namespace: 'kube-public' });
  informer.addEventHandler({
    add: (o) => controller.enqueue(objectKey(o)),
    update: (_o, n) => controller.enqueue(objectKey(n)),
  });
  manager.addController(controller);
  return { manager, reconciled };
}

const get = async (port: number, path: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { code: res.status, text: await res.text() };
};

describe('Manager', () => {
  it('serves probes and metrics, runs controllers only on the leader, and hands over on shutdown', async () => {
    await client.create(Resources.ConfigMap, { metadata: { name: 'seed', namespace: 'kube-public' } });
    const a = makeManager('a');
    await a.manager.start();
    expect(await get(a.manager.healthPort, '/healthz')).toEqual({ code: 200, text: 'ok' });
    const ready = await get(a.manager.healthPort, '/readyz?verbose');
    expect(ready.code).toBe(200);
    expect(ready.text).toContain('[+]informers ok');
    await eventually(() => a.reconciled.includes('kube-public/seed'));
    const metrics = await get(a.manager.metricsPort, '/metrics');
    expect(metrics.text).toContain(
      'controller_runtime_reconcile_total{controller="configmaps-a",result="success"}',
    );
    expect(metrics.text).toContain('leader_election_master_status{name="test-manager"} 1');

    const b = makeManager('b');
    await b.manager.start();
    await client.create(Resources.ConfigMap, { metadata: { name: 'second', namespace: 'kube-public' } });
    await eventually(() => a.reconciled.includes('kube-public/second'));
    expect(b.reconciled).toEqual([]);

    const stopped = Date.now();
    await a.manager.stop();
    expect(Date.now() - stopped).toBeLessThan(5000);
    await eventually(() => b.manager.isLeader(), 3000);
    await eventually(() => b.reconciled.includes('kube-public/second'));
    expect(
      (await fetch(`http://127.0.0.1:${a.manager.healthPort}/healthz`).catch(() => undefined))?.status,
    ).toBeUndefined();
    await b.manager.stop();
  });
});
