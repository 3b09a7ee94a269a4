import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller, KubeClient, Manager, objectKey, Resources } from '../src/index.ts';
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

    await a.manager.stop();
    const released = (await client.get(Resources.Lease, 'default', 'test-manager')).spec;
    expect(released.holderIdentity).toBe('');
    await eventually(() => b.manager.isLeader(), 10_000);
    // b did not wait out the lease: a released it when it stopped.
    const taken = (await client.get(Resources.Lease, 'default', 'test-manager')).spec;
    expect(Date.parse(taken.acquireTime) - Date.parse(released.renewTime)).toBeLessThan(3000);
    await eventually(() => b.reconciled.includes('kube-public/second'));
    expect(
      (await fetch(`http://127.0.0.1:${a.manager.healthPort}/healthz`).catch(() => undefined))?.status,
    ).toBeUndefined();
    await b.manager.stop();
  });

  it('a replica that loses its Lease aborts its reconciles at once, sends no write after, and never leads again', async () => {
    const user = 'manager-cut-off';
    const own = KubeClient.fromString(
      cp.kubeconfig(cp.tokens.addStaticToken({ username: user, groups: ['system:masters'] }), user),
    );
    const lost: string[] = [];
    const manager = new Manager({
      client: own,
      gracefulShutdownMs: 5000,
      leaderElection: {
        namespace: 'default',
        name: 'lost-lease',
        identity: 'cut-off',
        leaseDurationMs: 3000,
        renewDeadlineMs: 2000,
        retryPeriodMs: 250,
      },
      onLeadershipLost: (reason) => lost.push(reason),
    });
    let gate: () => void = () => undefined;
    const gated = new Promise<void>((r) => (gate = r));
    const outcomes: string[] = [];
    const controller = new Controller({
      name: 'writer',
      reconcile: async (ctx, key) => {
        if (key !== 'kube-public/work') return;
        outcomes.push('started');
        await gated;
        // Sent while the partition holds every request of this replica: in flight at the loss.
        for (let attempt = 0; attempt < 2; attempt++) {
          try {
            await own.mergePatch(Resources.ConfigMap, 'kube-public', 'work', { data: { by: user } });
            outcomes.push('written');
          } catch (err) {
            outcomes.push(`${(err as Error).name}${ctx.signal.aborted ? ' after abort' : ''}`);
          }
        }
      },
    });
    const informer = manager.informers.informerFor({
      resource: Resources.ConfigMap,
      namespace: 'kube-public',
    });
    informer.addEventHandler({ add: (o) => controller.enqueue(objectKey(o)) });
    manager.addController(controller);
    await client.create(Resources.ConfigMap, { metadata: { name: 'work', namespace: 'kube-public' } });
    await manager.start();
    await eventually(() => outcomes.includes('started'), 10_000);
    expect(manager.isLeader()).toBe(true);

    cp.faults.partition(user);
    gate();
    await eventually(() => lost.length === 1, 10_000);
    await eventually(() => outcomes.length === 3, 10_000);
    cp.faults.heal(user);
    expect(lost).toEqual(['failed to renew the lease within 2000 ms']);
    expect(manager.leadershipLost()).toBe('failed to renew the lease within 2000 ms');
    expect(manager.isLeader()).toBe(false);
    // The write in flight was cancelled and the retry was never sent.
    expect(outcomes).toEqual(['started', 'AbortError after abort', 'AbortError after abort']);
    // Once healed, the server has seen no write of this replica to the object, ever.
    await client.create(Resources.ConfigMap, { metadata: { name: 'marker', namespace: 'kube-public' } });
    expect(
      cp.audit.list((r) => r.user === user && r.resource === 'configmaps' && r.verb === 'patch'),
    ).toEqual([]);
    expect((await client.get(Resources.ConfigMap, 'kube-public', 'work')).data).toBeUndefined();
    await expect(manager.start()).rejects.toThrow('a manager starts once');
    expect(() => controller.start()).toThrow('a stopped controller cannot start again');
    await manager.stop();
    own.close();
  });

  it('fails start-up when an informer cannot list within the cache sync timeout, naming the kind and the status', async () => {
    const user = 'no-permissions';
    const own = KubeClient.fromString(
      cp.kubeconfig(cp.tokens.addStaticToken({ username: user, groups: [] }), user),
    );
    const manager = new Manager({ client: own, cacheSyncTimeoutMs: 1000 });
    manager.informers.informerFor({ resource: Resources.ConfigMap, namespace: 'kube-public' });
    await expect(manager.start()).rejects.toThrow(
      /^failed to wait for caches to sync: timed out waiting for cache to be synced for Kind \*v1\.ConfigMap \(failed to list \*v1\.ConfigMap: 403 Forbidden: configmaps is forbidden: User "no-permissions" cannot list resource "configmaps"/,
    );
    await manager.stop();
    own.close();
  });
});
