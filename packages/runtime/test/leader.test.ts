import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, LeaderElector, Resources } from '../src/index.ts';
import { eventually, sleep, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
let clientA: KubeClient;
const USER_A = 'system:serviceaccount:default:elector-a';

beforeAll(async () => {
  ({ cp, client } = await startEnv());
  // Candidate "a" has its own identity at the API server, so faults can cut it off alone.
  await client.create(Resources.ServiceAccount, { metadata: { name: 'elector-a', namespace: 'default' } });
  await client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    body: {
      metadata: { name: 'leases' },
      rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['*'] }],
    },
  });
  await client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: {
      metadata: { name: 'leases' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'leases' },
      subjects: [{ kind: 'ServiceAccount', name: 'elector-a', namespace: 'default' }],
    },
  });
  const tr = await client.request('POST', '/api/v1/namespaces/default/serviceaccounts/elector-a/token', {
    body: { spec: { audiences: [] } },
  });
  clientA = KubeClient.fromString(cp.kubeconfig(tr.status.token, 'elector-a'));
});
afterAll(() => cp.stop());

const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 250 };

function elector(name: string, identity: string) {
  const state = { leading: false, startedAt: 0, stoppedAt: 0 };
  const e = new LeaderElector(identity === 'a' ? clientA : client, {
    namespace: 'default',
    name,
    identity,
    ...timing,
    onStartedLeading: () => {
      state.leading = true;
      state.startedAt = Date.now();
    },
    onStoppedLeading: () => {
      state.leading = false;
      state.stoppedAt = Date.now();
    },
  });
  return { e, state };
}

describe('LeaderElector', () => {
  it('elects one leader; a successor takes over within the lease duration when the leader goes silent', async () => {
    const a = elector('failover', 'a');
    const b = elector('failover', 'b');
    a.e.start();
    await eventually(() => a.state.leading);
    b.e.start();
    await sleep(800);
    expect(b.state.leading).toBe(false);
    const lease = await client.get(Resources.Lease, 'default', 'failover');
    expect(lease.spec.holderIdentity).toBe('a');
    // The leader loses the API server: its renewals fail, as a crashed process's would stop.
    cp.faults.failRequests(
      'coordination.k8s.io/leases',
      Number.POSITIVE_INFINITY,
      503,
      ['get', 'update', 'create'],
      USER_A,
    );
    const cut = Date.now();
    await eventually(() => !a.state.leading, 5000);
    expect(a.state.stoppedAt - cut).toBeLessThanOrEqual(timing.renewDeadlineMs + 2 * timing.retryPeriodMs);
    await eventually(() => b.state.leading, 6000);
    expect(b.state.startedAt - cut).toBeLessThanOrEqual(timing.leaseDurationMs + 2 * timing.retryPeriodMs);
    cp.faults.clear();
    expect((await client.get(Resources.Lease, 'default', 'failover')).spec).toMatchObject({
      holderIdentity: 'b',
      leaseTransitions: 1,
    });
    await a.e.stop();
    await b.e.stop();
  });

  it('hands over at once when the leader releases the lease on shutdown', async () => {
    const a = elector('release', 'a');
    const b = elector('release', 'b');
    a.e.start();
    await eventually(() => a.state.leading);
    b.e.start();
    await sleep(300);
    const released = Date.now();
    await a.e.stop();
    expect((await client.get(Resources.Lease, 'default', 'release')).spec.holderIdentity).not.toBe('a');
    await eventually(() => b.state.leading, 3000);
    expect(b.state.startedAt - released).toBeLessThan(1500);
    await b.e.stop();
  });
});
