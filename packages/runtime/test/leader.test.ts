import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, LeaderElector, Resources } from '../src/index.ts';
import { eventually, startEnv } from './env.ts';

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
  const state = { leading: false, starts: 0, startedAt: 0, lostAt: 0, reason: '' };
  const e = new LeaderElector(identity === 'a' ? clientA : client, {
    namespace: 'default',
    name,
    identity,
    ...timing,
    onStartedLeading: () => {
      state.leading = true;
      state.starts++;
      state.startedAt = Date.now();
    },
    onLostLeadership: (reason) => {
      state.leading = false;
      state.lostAt = Date.now();
      state.reason = reason;
    },
  });
  return { e, state };
}

/** Lease reads of the admin user so far (candidate "b" and this test read as admin). */
const adminLeaseReads = (name: string) =>
  cp.audit.list((r) => r.user === 'kubernetes-admin' && r.resource === 'leases' && r.name === name).length;

const leaseSpec = async (name: string) => (await client.get(Resources.Lease, 'default', name)).spec;

describe('LeaderElector', () => {
  it('elects one leader; a leader cut off by a partition gives up at its renew deadline, before a successor takes over', async () => {
    const a = elector('failover', 'a');
    const b = elector('failover', 'b');
    a.e.start();
    await eventually(() => a.state.leading);
    const reads = adminLeaseReads('failover');
    b.e.start();
    // b has tried (and failed) to take the lease more than once while a holds it.
    await eventually(() => adminLeaseReads('failover') >= reads + 2);
    expect(b.state.leading).toBe(false);
    expect((await leaseSpec('failover')).holderIdentity).toBe('a');

    // The partition: a's requests get no answer, so only its own deadline can end its renewals.
    const lastRenewOfA = Date.parse((await leaseSpec('failover')).renewTime);
    cp.faults.partition(USER_A);
    await eventually(() => a.state.lostAt > 0, 10_000);
    expect(a.state.reason).toBe('failed to renew the lease within 2000 ms');
    await eventually(() => b.state.leading, 10_000);
    cp.faults.heal(USER_A);
    const taken = await leaseSpec('failover');
    expect(taken).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    // Never two leaders: a gave up before b's acquire time, which came a full lease duration after
    // a's last renewal that b could have seen.
    const acquired = Date.parse(taken.acquireTime);
    expect(a.state.lostAt).toBeLessThan(acquired);
    expect(acquired - lastRenewOfA).toBeGreaterThanOrEqual(timing.leaseDurationMs);
    // a gave up only once its renew deadline had passed since its last successful renewal.
    expect(a.state.lostAt - lastRenewOfA).toBeGreaterThanOrEqual(timing.renewDeadlineMs);

    // An elector that lost leads no more: when b releases, a newcomer takes the lease, never a.
    const c = elector('failover', 'c');
    c.e.start();
    await b.e.stop();
    await eventually(() => c.state.leading, 10_000);
    expect(a.state.starts).toBe(1);
    await a.e.stop();
    await c.e.stop();
  });

  it('hands over without waiting out the lease when the leader releases it on shutdown', async () => {
    const a = elector('release', 'a');
    const b = elector('release', 'b');
    a.e.start();
    await eventually(() => a.state.leading);
    const reads = adminLeaseReads('release');
    b.e.start();
    await eventually(() => adminLeaseReads('release') >= reads + 1);
    await a.e.stop();
    const released = await leaseSpec('release');
    expect(released.holderIdentity).toBe('');
    await eventually(() => b.state.leading, 10_000);
    const taken = await leaseSpec('release');
    expect(taken.holderIdentity).toBe('b');
    // b took it before the lease duration a had been holding it for would have run out.
    expect(Date.parse(taken.acquireTime) - Date.parse(released.renewTime)).toBeLessThan(
      timing.leaseDurationMs,
    );
    expect(a.state.lostAt).toBe(0);
    await b.e.stop();
  });

  it('refuses timings client-go refuses, in its words', () => {
    const make = (t: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }) => () =>
      new LeaderElector(client, {
        namespace: 'default',
        name: 'x',
        identity: 'x',
        ...t,
        onStartedLeading: () => undefined,
        onLostLeadership: () => undefined,
      });
    expect(make({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 })).toThrow(
      'leaseDuration must be greater than renewDeadline',
    );
    expect(make({ leaseDurationMs: 15_000, renewDeadlineMs: 2000, retryPeriodMs: 2000 })).toThrow(
      'renewDeadline must be greater than retryPeriod*JitterFactor',
    );
    expect(make({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 })).toThrow(
      'retryPeriod must be greater than zero',
    );
  });
});
