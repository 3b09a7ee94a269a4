import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ImagePullJob, KruiseResources, type NodeImage } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import { freePort } from '@kruise/stack/free-port';
import type { Program } from '@kruise/stack/program';
import { startDaemonProcess, startManagerProcess } from '@kruise/stack/program-recipes';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * Faults over the real processes and the real runtime: a control plane (in this process) with its
 * fault switches, two leader-elected kruise-manager replicas, a local node and kruise-daemon on the
 * test containerd and registry. Before each case the system is brought back to that shape (two live
 * replicas, one holding the Lease, the webhook Service on a live one, the daemon running), and each
 * case creates its own pods and jobs, so a case passes or fails on its own, in any order or alone.
 * Each case is bounded in time and ends by itself; what was observed (recovery times, request
 * counts) is printed with a `[fault]` prefix.
 */
const NODE = 'fault-node';
const SECRET_PASSWORD = 'pw-NEVER-LOGGED-4217';
let sys: System;
const managers: Program[] = [];
/** Each replica's webhook port. */
const webhookPorts = new Map<Program, number>();
const observed: string[] = [];
const note = (line: string) => {
  observed.push(line);
  console.log(`[fault] ${line}`);
};

/** A kruise-manager replica with leader election (short lease for the test's time bounds). */
async function startReplica(): Promise<{ program: Program; webhookPort: number }> {
  const r = await startManagerProcess(sys.kubeconfig, [
    '--enable-leader-election=true',
    '--nodeimage-creation-delay=0s',
  ]);
  managers.push(r.program);
  webhookPorts.set(r.program, r.webhookPort);
  return r;
}

const lease = () => sys.client.get(Resources.Lease, 'kruise-system', 'kruise-manager').catch(() => undefined);
const leaseHolder = async () => (await lease())?.spec?.holderIdentity ?? '';
/** kruise-manager's --leader-election-retry-period (default), with client-go's jitter of up to 20 %. */
const RETRY_MS = 2_000 * 1.2;

/** The replica that says it became leader under `identity`. */
const replicaOf = (identity: string) =>
  managers.find((m) => m.child.exitCode === null && m.output().includes(`"identity":"${identity}"`));

const job = (name: string, image: string, extra: Record<string, unknown> = {}) =>
  sys.client.create<ImagePullJob & KubeObject>(KruiseResources.ImagePullJob, {
    metadata: { name, namespace: 'default' },
    spec: { image, selector: { names: [NODE] }, completionPolicy: { type: 'Always' }, ...extra },
  });
/** Waits for a job to complete; on timeout the error names the job's last status. */
const jobDone = (name: string, timeoutMs = 60_000) =>
  until(async () => {
    const j = await sys.client.get<ImagePullJob & KubeObject>(KruiseResources.ImagePullJob, 'default', name);
    if (j.status?.completionTime) return j;
    throw new Error(`job ${name} not complete, status ${JSON.stringify(j.status)}`);
  }, timeoutMs);

beforeAll(async () => {
  sys = await startSystem(NODE);
  // Two leader-elected replicas replace the system's single manager.
  await sys.manager.stop();
  const a = await startReplica();
  await startReplica();
  await pointWebhookService(sys.client, a.webhookPort);
  await until(leaseHolder, 30_000);
  // jobs select this node by name: its NodeImage must exist first (else a job has 0 nodes to pull on)
  await until(
    () => sys.client.get(KruiseResources.NodeImage, undefined, NODE).catch(() => undefined),
    30_000,
  );
  await sys.client.create(Resources.Secret, {
    metadata: { name: 'reg', namespace: 'default' },
    type: 'kubernetes.io/dockerconfigjson',
    data: {
      '.dockerconfigjson': Buffer.from(
        JSON.stringify({ auths: { [sys.registry]: { username: 'u', password: SECRET_PASSWORD } } }),
      ).toString('base64'),
    },
  });
});
afterAll(async () => {
  for (const m of managers) await m.stop();
  await sys?.stop();
});

const isAlive = (p: Program) => p.child.exitCode === null && p.child.signalCode === null;

/**
 * Brings the system back to its starting shape: two live replicas, the Lease held by one of them
 * (after a SIGKILL this waits for the lease to expire), the webhook Service on a live replica, and
 * kruise-daemon running.
 */
async function twoReplicasAndDaemon(): Promise<void> {
  while (managers.filter(isAlive).length < 2) await startReplica();
  const holder = await until(async () => {
    const h = await leaseHolder();
    return h && replicaOf(h) ? h : undefined;
  }, 30_000);
  await pointWebhookService(sys.client, webhookPorts.get(replicaOf(holder)!)!);
  if (!isAlive(sys.daemon))
    sys.daemon = await startDaemonProcess(sys.kubeconfig, NODE, `unix://${sys.criSocket}`);
}
beforeEach(twoReplicasAndDaemon, 60_000);

/** A running pod of this test's own on the node, with one looping container `app`. */
async function runningPod(name: string): Promise<KubeObject> {
  await sys.client.create(Resources.Pod, {
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'app', image: `${sys.registry}/busybox:v1`, command: LOOP }],
    },
  });
  return until(async () => {
    const p = await sys.client.get(Resources.Pod, 'default', name);
    return p.status?.containerStatuses?.[0]?.ready ? p : undefined;
  });
}

/** Waits for a ContainerRecreateRequest to complete. */
const crrCompleted = (name: string) =>
  until(
    async () =>
      (await sys.client.get(KruiseResources.ContainerRecreateRequest, 'default', name)).status?.phase ===
      'Completed',
  );

describe('faults', () => {
  it('every watch dropped, then history compacted: informers relist and a job and a CRR created meanwhile complete', async () => {
    await runningPod('watch-drop');
    const dropped = sys.cp.faults.dropWatches();
    sys.cp.faults.compactHistory();
    const started = Date.now();
    await job('during-outage', `${sys.registry}/busybox:v2`, { pullSecrets: ['reg'] });
    await sys.client.create(KruiseResources.ContainerRecreateRequest, {
      metadata: { name: 'during-outage', namespace: 'default' },
      spec: { podName: 'watch-drop', containers: [{ name: 'app' }] },
    });
    const done = await jobDone('during-outage');
    expect(done.status).toMatchObject({ desired: 1, succeeded: 1 });
    await crrCompleted('during-outage');
    note(
      `watch drop + compaction: ${dropped} watches dropped; job and CRR created during it completed after ${Date.now() - started} ms`,
    );
  });

  it('webhook server unreachable: creates are refused with the API server message, nothing is half-written; then all works', async () => {
    const port = webhookPorts.get(replicaOf(await leaseHolder())!)!;
    const dead = await freePort();
    await pointWebhookService(sys.client, dead);
    const err = await job('refused', `${sys.registry}/busybox:v1`).catch((e) => e);
    expect(err.code).toBe(500);
    expect(err.message).toMatch(
      /^Internal error occurred: failed calling webhook "mimagepulljob\.kb\.io": failed to call webhook: Post "https:\/\/kruise-webhook-service\.kruise-system\.svc:443\/mutate-apps-kruise-io-v1alpha1-imagepulljob\?timeout=30s": dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/,
    );
    const stored = await sys.client.get(KruiseResources.ImagePullJob, 'default', 'refused').catch((e) => e);
    expect(stored.code).toBe(404);
    await pointWebhookService(sys.client, port);
    const created = await job('refused', `${sys.registry}/busybox:v1`);
    expect(created.metadata?.finalizers).toContain('apps.kruise.io/deletion-protection');
    await jobDone('refused');
    note(
      'webhook unreachable: create refused with 500 "failed calling webhook … connection refused", no object stored; created normally once reachable',
    );
  });

  it("the API server answers 500, then 429, to the manager's job writes for a while: backoff, no tight loop, convergence", async () => {
    for (const code of [500, 429]) {
      const name = `flaky-${code}`;
      sys.cp.audit.clear();
      sys.cp.faults.failRequests('apps.kruise.io/imagepulljobs', 6, code, ['update', 'patch']);
      await job(name, `${sys.registry}/busybox:v1`);
      const done = await jobDone(name);
      expect(done.status).toMatchObject({ desired: 1, succeeded: 1 });
      const writes = sys.cp.audit.list(
        (r) => r.resource === 'imagepulljobs' && (r.verb === 'update' || r.verb === 'patch'),
      );
      const failed = writes.filter((r) => r.code === code);
      expect(failed).toHaveLength(6);
      const span = Date.parse(failed.at(-1)!.time) - Date.parse(failed[0]!.time);
      // client-go's per-item backoff (5, 10, 20, 40, 80 ms …) between the failed attempts
      expect(span).toBeGreaterThanOrEqual(100);
      expect(writes.length).toBeLessThan(40);
      note(
        `${code} on job writes: 6 failures over ${span} ms, ${writes.length} job writes in all, job converged`,
      );
    }
  });

  it('the leader is SIGKILLed while 20 ImagePullJobs run: the other replica takes over in time; every job completes once', async () => {
    const images = ['busybox:v1', 'busybox:v2', 'big:v1', 'pause:v1'].map((i) => `${sys.registry}/${i}`);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        job(`many-${i}`, images[i % 4]!, { pullPolicy: { timeoutSeconds: 120, backoffLimit: 3 } }),
      ),
    );
    const before = await leaseHolder();
    const leader = replicaOf(before)!;
    expect(leader).toBeDefined();
    leader.child.kill('SIGKILL');
    // the Lease as the killed leader last renewed it, until another replica takes it
    let renewed = '';
    const taken = await until(async () => {
      const l = await lease();
      if (l && l.spec?.holderIdentity === before) renewed = l.spec.renewTime;
      return l?.spec?.holderIdentity && l.spec.holderIdentity !== before ? l : undefined;
    }, 25_000);
    const after: string = taken.spec.holderIdentity;
    // Taken once the last renewal was a lease duration old (as the candidate observed it), at one of
    // its tries: the Lease's own times, not how fast this machine ran.
    const takeover = Date.parse(taken.spec.acquireTime) - Date.parse(renewed);
    const duration = taken.spec.leaseDurationSeconds * 1000;
    expect(takeover).toBeGreaterThanOrEqual(duration);
    expect(takeover).toBeLessThanOrEqual(duration + 2 * RETRY_MS + 1_000);
    // webhooks from the survivor (its "became leader" line may reach us just after the Lease changes)
    const survivor = await until(() => replicaOf(after), 5000);
    await pointWebhookService(sys.client, webhookPorts.get(survivor)!);
    for (let i = 0; i < 20; i++)
      expect((await jobDone(`many-${i}`, 90_000)).status).toMatchObject({
        desired: 1,
        succeeded: 1,
        failed: 0,
      });
    const ni = await sys.client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, NODE);
    for (const image of Object.values(ni.spec?.images ?? {}))
      for (const t of image.tags ?? []) {
        const uids = (t.ownerReferences ?? []).map((o) => o.uid);
        expect(new Set(uids).size, `owners of tag ${t.tag}`).toBe(uids.length);
      }
    note(
      `leader SIGKILL: Lease taken over ${takeover} ms after its last renewal (lease ${duration} ms); 20/20 jobs succeeded, no tag owner twice`,
    );
  }, 180_000);

  it('SIGTERM: the manager releases its Lease and exits within its grace period; the daemon exits cleanly', async () => {
    const holder = await leaseHolder();
    const leader = await until(() => replicaOf(holder), 5000).catch((err) => {
      for (const m of managers)
        console.log(
          `--- ${m.name} ${m.child.pid} exit=${m.child.exitCode ?? m.child.signalCode}\n${m.output().slice(-2500)}`,
        );
      throw err;
    });
    const t0 = Date.now();
    expect(await leader.stop(30_000)).toBe(0);
    const exitMs = Date.now() - t0;
    const taken = await until(async () => {
      const l = await lease();
      return l?.spec?.holderIdentity && l.spec.holderIdentity !== holder ? l : undefined;
    }, 10_000);
    // A released Lease is taken at the successor's next try, not after the lease duration: from the
    // release (the last write of the Lease before the new holder's) to the new holder's acquireTime.
    const acquired = Date.parse(taken.spec.acquireTime);
    const release = sys.cp.audit
      .list(
        (r) =>
          r.resource === 'leases' && r.name === 'kruise-manager' && r.verb === 'update' && r.code === 200,
      )
      .filter((r) => Date.parse(r.time) < acquired)
      .at(-1)!;
    const handedOver = acquired - Date.parse(release.time);
    expect(handedOver).toBeLessThanOrEqual(RETRY_MS + 2_000);
    const newHolder: string = taken.spec.holderIdentity;
    const survivor = await until(() => replicaOf(newHolder), 5000);
    await pointWebhookService(sys.client, webhookPorts.get(survivor)!);
    const d0 = Date.now();
    expect(await sys.daemon.stop(10_000)).toBe(0);
    const daemonExit = Date.now() - d0;
    sys.daemon = await startDaemonProcess(sys.kubeconfig, NODE, `unix://${sys.criSocket}`);
    await jobDone((await job('after-restart', `${sys.registry}/pause:v1`)).metadata!.name!);
    note(
      `SIGTERM: manager exited in ${exitMs} ms, Lease taken by the other replica ${handedOver} ms after its release; daemon exited in ${daemonExit} ms`,
    );
  }, 60_000);

  it('bad input: a pull secret that is not docker config JSON is skipped with a Warning event naming it; the pull and other jobs go on', async () => {
    await sys.client.create(Resources.Secret, {
      metadata: { name: 'broken', namespace: 'default' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from('{not json').toString('base64') },
    });
    await job('broken-secret', `${sys.registry}/busybox:v2`, {
      pullSecrets: ['broken'],
      imagePullPolicy: 'Always',
      pullPolicy: { timeoutSeconds: 30, backoffLimit: 0 },
    });
    await job('neighbour', `${sys.registry}/busybox:v1`);
    // as kubelet does, an unreadable secret is skipped (this registry needs none), and users are told
    const broken = await jobDone('broken-secret');
    expect(broken.status).toMatchObject({ succeeded: 1 });
    const warning = await until(async () =>
      (await sys.client.list(Resources.Event, { namespace: 'default' })).items.find(
        (e: any) => e.reason === 'InvalidPullSecret' && e.involvedObject?.name === 'broken-secret',
      ),
    );
    expect(warning.type).toBe('Warning');
    expect(warning.message).toMatch(
      /^Ignoring pull secret kruise-daemon-config\/\S+ for image \S+busybox:v2: secret \S+ does not hold valid docker config JSON$/,
    );
    expect((await jobDone('neighbour')).status).toMatchObject({ succeeded: 1 });
  });

  it('containerd restarted under the daemon: /healthz reports it, running containers and CRRs are not disturbed', async () => {
    const dir = join(inject('criStackDir'), 'containerd');
    const pod = await runningPod('runtime-restart');
    const before = pod.status.containerStatuses[0].containerID;
    const port = Number(/"port":(\d+),"msg":"kruise-daemon started"/.exec(sys.daemon.output())![1]);
    const healthz = () =>
      fetch(`http://127.0.0.1:${port}/healthz`)
        .then((r) => r.status)
        .catch(() => 0);
    expect(await healthz()).toBe(200);
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    const t0 = Date.now();
    process.kill(pid, 'SIGTERM');
    await until(async () => (await healthz()) !== 200, 15_000);
    const noticed = Date.now() - t0;
    const child = spawn('containerd', ['--config', join(dir, 'config.toml')], {
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child.unref();
    writeFileSync(join(dir, 'pid'), String(child.pid));
    await until(async () => (await healthz()) === 200, 30_000);
    const recovered = Date.now() - t0;
    const still = await sys.client.get(Resources.Pod, 'default', 'runtime-restart');
    expect(still.status.containerStatuses[0].containerID).toBe(before);
    expect(still.status.containerStatuses[0].state.running).toBeTruthy();
    await sys.client.create(KruiseResources.ContainerRecreateRequest, {
      metadata: { name: 'after-containerd', namespace: 'default' },
      spec: { podName: 'runtime-restart', containers: [{ name: 'app' }] },
    });
    await crrCompleted('after-containerd');
    note(
      `containerd restart: /healthz failed ${noticed} ms after the stop, healthy again ${recovered} ms after it; container kept its ID; a CRR after it completed`,
    );
  }, 90_000);

  it('never writes secret contents to a log, after pulls that used the secret', async () => {
    // Its own pull with the secret (the other cases may not have run): then no process printed it.
    await jobDone(
      (
        await job('with-secret', `${sys.registry}/busybox:v2`, {
          pullSecrets: ['reg'],
          imagePullPolicy: 'Always',
        })
      ).metadata!.name!,
    );
    const b64 = Buffer.from(SECRET_PASSWORD).toString('base64');
    for (const p of [...managers, sys.daemon, sys.localNode]) {
      expect(p.output(), p.name).not.toContain(SECRET_PASSWORD);
      expect(p.output(), p.name).not.toContain(b64.slice(0, 16));
    }
    note(`secret contents: absent from ${managers.length + 2} processes' logs`);
  });
});
