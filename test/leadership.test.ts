import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { Informer, KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import { freePort } from '@kruise/stack/free-port';
import { startProgram } from '@kruise/stack/program';
import { localManagerArgs } from '@kruise/stack/program-recipes';
import { type SupervisedProgram, supervise } from '@kruise/stack/supervisor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/poll.ts';

/**
 * Leadership that survives a lost Lease, over two real kruise-manager processes kept running by the
 * stack's supervisor (as kubelet keeps a Deployment's pods running): the leader is cut off from the
 * API server by a partition (its requests get no answer), exits once it cannot renew, and is
 * started again; the other replica leads meanwhile; then that one is killed and the first, back on
 * the network, leads again and reconciles. From the control plane's audit of writes: no write of a
 * replica falls outside its own term as Lease holder.
 */
const LEASE = { durationS: 6, renewS: 4, retryS: 1 };
const LEASE_NAME = 'kruise-manager';
const NS = 'kruise-system';

let cp: ControlPlane;
let client: KubeClient;
let dir: string;
let lease: Informer;
/** Every version of the Lease seen, in order. */
const leaseHistory: { holder: string; acquireTime: string; renewTime: string }[] = [];
const replicas = new Map<string, { program: SupervisedProgram; webhookPort: number }>();
const exits: { user: string; result: number | string | null; output: string }[] = [];

/** A kruise-manager replica under supervision, with a user of its own at the API server. */
async function startReplica(user: string): Promise<void> {
  const token = cp.tokens.addStaticToken({ username: user, groups: ['system:masters'] });
  const kubeconfig = join(dir, `${user}.kubeconfig`);
  writeFileSync(kubeconfig, cp.kubeconfig(token, user), { mode: 0o600 });
  const webhookPort = await freePort();
  const args = [
    ...localManagerArgs(kubeconfig),
    `--webhook-port=${webhookPort}`,
    '--enable-leader-election=true',
    `--leader-election-lease-duration=${LEASE.durationS}s`,
    `--leader-election-renew-deadline=${LEASE.renewS}s`,
    `--leader-election-retry-period=${LEASE.retryS}s`,
  ];
  const program = supervise(
    () => startProgram(`kruise-manager-${user}`, 'packages/manager/src/main.ts', args),
    {
      initialBackoffMs: 500,
      maxBackoffMs: 2000,
      onExit: (instance, result) => exits.push({ user, result, output: instance.output() }),
    },
  );
  replicas.set(user, { program, webhookPort });
  await program.waitFor(/kruise-manager started/, 60_000);
}

const holder = () => (lease.get(`${NS}/${LEASE_NAME}`)?.spec?.holderIdentity as string | undefined) ?? '';
/** The replica (user) whose instance logged leadership under `identity`. */
const userOf = (identity: string) =>
  [...replicas].find(([, r]) => r.program.output().includes(`"identity":"${identity}"`))?.[0];
const leader = () => (holder() ? userOf(holder()) : undefined);

const pods = async () => (await client.list(Resources.Pod, { namespace: 'default' })).items;
const scale = (replicasWanted: number) =>
  client.mergePatch(KruiseResources.CloneSet, 'default', 'work', { spec: { replicas: replicasWanted } });
/** The first pod create of `user` at or after `since` (ISO time), from the audit. */
const podCreateBy = (user: string, since: string) =>
  cp.audit.list(
    (r) => r.user === user && r.verb === 'create' && r.resource === 'pods' && r.time >= since && r.code < 300,
  )[0];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kruise-leadership-'));
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  await installKruiseApi(client);
  lease = new Informer(client, { resource: Resources.Lease, namespace: NS });
  lease.addEventHandler({
    add: (l: KubeObject) => recordLease(l),
    update: (_o: KubeObject, l: KubeObject) => recordLease(l),
  });
  lease.start();
  await startReplica('replica-a');
  await eventually(() => leader() === 'replica-a', 30_000);
  await startReplica('replica-b');
  await pointWebhookService(client, replicas.get('replica-b')!.webhookPort);
}, 120_000);

function recordLease(l: KubeObject): void {
  if (l.metadata?.name !== LEASE_NAME) return;
  const spec = l.spec ?? {};
  leaseHistory.push({
    holder: spec.holderIdentity ?? '',
    acquireTime: spec.acquireTime ?? '',
    renewTime: spec.renewTime ?? '',
  });
}

afterAll(async () => {
  for (const { program } of replicas.values()) await program.stop();
  await lease?.stop();
  client?.close();
  await cp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('leader election', () => {
  it('a leader cut off from the API server exits and is restarted; the other leads; when that one dies the first leads again, and no two replicas ever write in the same term', async () => {
    // replica-a leads and reconciles.
    await client.create(KruiseResources.CloneSet, {
      metadata: { name: 'work', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'work' } },
        template: {
          metadata: { labels: { app: 'work' } },
          spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
        },
      },
    });
    await eventually(async () => (await pods()).length === 2, 30_000);
    expect(podCreateBy('replica-a', '')).toBeDefined();

    // The partition: replica-a's requests get no answer. It loses the Lease once it cannot renew
    // within the renew deadline and exits 1, naming the Lease; its supervisor starts it again.
    const a = replicas.get('replica-a')!.program;
    const cut = Date.now();
    cp.faults.partition('replica-a');
    await a.restarted(1, (LEASE.renewS + 10) * 1000);
    note(
      `replica-a cut off: exited and was restarted ${Date.now() - cut} ms later (renew deadline ${LEASE.renewS} s)`,
    );
    const lost = exits.find((e) => e.user === 'replica-a')!;
    expect(lost.result).toBe(1);
    expect(lost.output).toMatch(/"lease":"kruise-system\/kruise-manager".*"msg":"leader election lost"/);

    // replica-b takes over once the lease has expired, and reconciles.
    await eventually(() => leader() === 'replica-b', (LEASE.durationS + 10) * 1000);
    note(`replica-b leads ${Date.now() - cut} ms after the cut (lease ${LEASE.durationS} s)`);
    const bLeads = new Date().toISOString();
    await scale(4);
    await eventually(async () => (await pods()).length === 4, 30_000);
    expect(podCreateBy('replica-b', bLeads)).toBeDefined();

    // The network comes back; replica-a runs again (a fresh process) and competes.
    cp.faults.heal('replica-a');
    const syncedBefore = a.output().split('"caches synced"').length;
    await eventually(() => a.output().split('"caches synced"').length > syncedBefore, 60_000);
    await pointWebhookService(client, replicas.get('replica-a')!.webhookPort);

    // replica-b dies without releasing the Lease; replica-a takes it over and reconciles again.
    const b = replicas.get('replica-b')!.program.unsupervise();
    const bLast = leaseHistory.filter((v) => userOf(v.holder) === 'replica-b').at(-1)!;
    b.child.kill('SIGKILL');
    await eventually(() => leader() === 'replica-a', (2 * LEASE.durationS + 10) * 1000);
    const aBack = new Date().toISOString();
    await scale(5);
    await eventually(async () => (await pods()).length === 5, 30_000);
    const firstWrite = podCreateBy('replica-a', aBack)!;
    expect(firstWrite).toBeDefined();
    // Within one lease duration of the moment the Lease became free (read from the Lease itself).
    const freeAt = Date.parse(bLast.renewTime) + LEASE.durationS * 1000;
    const took = leaseHistory.find(
      (v) => userOf(v.holder) === 'replica-a' && Date.parse(v.acquireTime) > Date.parse(bLast.renewTime),
    )!;
    expect(Date.parse(took.acquireTime) - freeAt).toBeLessThanOrEqual(LEASE.durationS * 1000);
    note(
      `replica-b killed: replica-a took the Lease ${Date.parse(took.acquireTime) - freeAt} ms after it became free, first write ${Date.parse(firstWrite.time) - Date.parse(took.acquireTime)} ms later`,
    );

    // At no moment did two replicas write: each controller write lies in its writer's own term.
    const terms = termsOf(leaseHistory);
    expect(terms.map((t) => t.user)).toEqual(['replica-a', 'replica-b', 'replica-a']);
    const writes = cp.audit.list(
      (r) =>
        r.user.startsWith('replica-') &&
        ['create', 'update', 'patch', 'delete'].includes(r.verb) &&
        !NOT_CONTROLLER_WRITES.has(r.resource),
    );
    expect(writes.length).toBeGreaterThan(0);
    for (const w of writes) {
      const term = terms.findLast((t) => t.from <= w.time);
      expect({
        write: `${w.verb} ${w.resource}/${w.name}`,
        by: w.user,
        at: w.time,
        term: term?.user,
      }).toEqual({
        write: `${w.verb} ${w.resource}/${w.name}`,
        by: w.user,
        at: w.time,
        term: w.user,
      });
    }
  }, 240_000);
});

const note = (line: string) => console.log(`[leadership] ${line}`);

/** What every replica writes whether it leads or not: its Lease, the webhook certificates and configurations. */
const NOT_CONTROLLER_WRITES = new Set([
  'leases',
  'secrets',
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'customresourcedefinitions',
]);

/** The Lease's terms: who held it from which time on (its acquireTime), in order. */
function termsOf(history: typeof leaseHistory): { user: string; from: string }[] {
  const terms: { user: string; from: string }[] = [];
  for (const v of history) {
    const user = v.holder ? userOf(v.holder) : undefined;
    if (!user || !v.acquireTime) continue;
    const from = new Date(Date.parse(v.acquireTime)).toISOString();
    if (terms.at(-1)?.from === from) continue;
    terms.push({ user, from });
  }
  return terms;
}
