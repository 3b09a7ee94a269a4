import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources, type PodUnavailableBudget } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { DEPLOY_FEATURE_GATES } from '@kruise/deploy';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService, withdrawWebhooks } from '@kruise/stack/cluster-bootstrap';
import type { Program } from '@kruise/stack/program';
import { startManagerProcess } from '@kruise/stack/program-recipes';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { watchAvailability } from '../support/availability-watch.ts';
import { disruptAtOnce } from '../support/disruption-burst.ts';
import { kubectl } from '../support/kubectl.ts';
import { startTestNodes, type TestNodes } from '../support/local-nodes.ts';
import { eventually } from '../support/poll.ts';
import { LOOP } from './env.ts';

/**
 * PodUnavailableBudgets end to end: two kruise-manager replicas (one leader for the controllers,
 * both serving the webhooks, the API server spreading its calls over them) and two local nodes on
 * real containerd. Deletions refused in upstream's words, dry runs and opt-outs, `kubectl drain`
 * waiting on the budget, an in-place update paced by it, and 200 deletions and evictions at once
 * from several clients, five times, never taking more pods down than the budget allows.
 */
const registry = inject('registry');
const criStackDir = inject('criStackDir');
let cp: ControlPlane;
let client: KubeClient;
let cluster: TestNodes;
let kubeconfig: string;
let dir: string;
const managers: { program: Program; metricsPort: number }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pub-e2e-'));
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  await installKruiseApi(client);
  const args = [
    '--enable-leader-election=true',
    `--feature-gates=${DEPLOY_FEATURE_GATES},PodUnavailableBudgetUpdateGate=true`,
  ];
  const started = await Promise.all([0, 1].map(() => startManagerProcess(kubeconfig, args)));
  managers.push(...started);
  await pointWebhookService(
    client,
    started.map((m) => m.webhookPort),
  );
  cluster = await startTestNodes(client, { count: 2, base: 'pub', criStackDir, registry });
}, 240_000);
afterAll(async () => {
  await Promise.all(managers.map((m) => m.program.stop()));
  if (client) await withdrawWebhooks(client);
  const pods = await client?.list(Resources.Pod, { namespace: 'default' }).catch(() => undefined);
  await Promise.all(
    (pods?.items ?? []).map((p) =>
      client
        .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 0 })
        .catch(() => undefined),
    ),
  );
  await eventually(async () => (await client.list(Resources.Pod)).items.length === 0, 60_000, 200).catch(
    () => undefined,
  );
  await cluster?.stop();
  await cp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Pod = KubeObject;
const PUB = KruiseResources.PodUnavailableBudget;
const image = (tag: string) => `${registry}/busybox:${tag}`;
const cloneSet = (name: string, replicas: number, strategy: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    updateStrategy: strategy,
    template: {
      metadata: { labels: { app: name } },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [{ name: 'app', image: image('v1'), command: LOOP }],
      },
    },
  },
});
const budget = (name: string, maxUnavailable: number) => ({
  metadata: { name, namespace: 'default' },
  spec: { targetRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name }, maxUnavailable },
});
const podsOf = async (app: string): Promise<Pod[]> =>
  (await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${app}` })).items;
const available = (p: Pod) =>
  !p.metadata?.deletionTimestamp &&
  (p.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );
const statusOf = async (name: string) =>
  ((await client.get(PUB, 'default', name)) as PodUnavailableBudget).status;
/** Waits until the CloneSet's `replicas` pods are all available and its budget allows `allowed` again. */
const settled = (name: string, replicas: number, allowed: number, timeoutMs = 120_000) =>
  eventually(
    async () => {
      const pods = (await podsOf(name)).filter(available);
      return pods.length === replicas && (await statusOf(name))?.unavailableAllowed === allowed;
    },
    { timeoutMs, intervalMs: 200, what: `${name}: ${replicas} pods available, ${allowed} allowed` },
  ).catch(async (err) => {
    throw new Error(`${err.message}: ${await describeApp(name)}`);
  });

/** The CloneSet's pods and budget in a line each, for a failure's message. */
async function describeApp(app: string): Promise<string> {
  const pods = (await podsOf(app)).map((p) =>
    JSON.stringify({
      name: p.metadata?.name,
      node: p.spec?.nodeName,
      deleting: !!p.metadata?.deletionTimestamp,
      spec: p.spec?.containers?.[0]?.image,
      running: p.status?.containerStatuses?.[0]?.image,
      conditions: (p.status?.conditions ?? []).map(
        (c: { type: string; status: string }) => `${c.type}=${c.status}`,
      ),
      state: p.metadata?.annotations?.['apps.kruise.io/inplace-update-state'],
      lifecycle: p.metadata?.labels?.['lifecycle.apps.kruise.io/state'],
    }),
  );
  const cs = await client.get(KruiseResources.CloneSet, 'default', app).catch(() => undefined);
  return [
    ...pods,
    `cloneset ${JSON.stringify(cs?.status)}`,
    `pub ${JSON.stringify(await statusOf(app).catch(() => undefined))}`,
  ].join('\n');
}

/** The most of the CloneSet's pods unavailable at once while `during` runs, by every pod change watched. */
async function mostUnavailable(app: string, replicas: number, during: () => Promise<void>): Promise<number> {
  const watch = await watchAvailability(client, 'default', `app=${app}`, replicas);
  try {
    await during();
    return watch.most;
  } finally {
    await watch.stop();
  }
}

const refusal = (hook: string, pub: string) =>
  `admission webhook "${hook}" denied the request: podunavailablebudget.policy.kruise.io "${pub}" is forbidden: pub unavailable allowed is negative`;

describe('PodUnavailableBudget on real nodes, two kruise-manager replicas', () => {
  it('refuses the second deletion of a 4-pod CloneSet in upstream words; dry runs and opted-out pods pass', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('web', 4));
    await client.create(PUB, budget('web', 1));
    await settled('web', 4, 1);
    const [a, b, c] = (await podsOf('web')).map((p) => p.metadata!.name!);
    const dry = await kubectl(kubeconfig, ['delete', 'pod', a!, '--dry-run=server']);
    expect(dry.stdout).toContain(`pod "${a}" deleted (server dry run)`);
    expect((await statusOf('web'))?.unavailableAllowed).toBe(1);
    expect((await kubectl(kubeconfig, ['delete', 'pod', a!, '--wait=false'])).status).toBe(0);
    const second = await kubectl(kubeconfig, ['delete', 'pod', b!, '--wait=false']);
    expect(second.status).not.toBe(0);
    expect(second.stderr.trim()).toBe(`Error from server (Forbidden): ${refusal('vpod.kb.io', 'web')}`);
    await kubectl(kubeconfig, ['annotate', 'pod', c!, 'pub.kruise.io/no-protect=true']);
    expect((await kubectl(kubeconfig, ['delete', 'pod', c!, '--wait=false'])).status).toBe(0);
    await settled('web', 4, 1);
  }, 180_000);

  it('paces an in-place update to the budget: never more than one pod down, the same pods updated', async () => {
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'web', {
      spec: { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '100%' } },
    });
    const before = (await podsOf('web'))
      .filter(available)
      .map((p) => p.metadata!.uid)
      .sort();
    const most = await mostUnavailable('web', 4, async () => {
      await client.mergePatch(KruiseResources.CloneSet, 'default', 'web', {
        spec: { template: { spec: { containers: [{ name: 'app', image: image('v2'), command: LOOP }] } } },
      });
      await eventually(
        async () => {
          const pods = await podsOf('web');
          return (
            pods.length === 4 &&
            pods.every((p) => available(p) && p.status?.containerStatuses?.[0]?.image === image('v2'))
          );
        },
        { timeoutMs: 120_000, intervalMs: 200, what: 'every pod running v2' },
      ).catch(async (err) => {
        throw new Error(`${err.message}: ${await describeApp('web')}`);
      });
    });
    expect(most).toBe(1);
    expect(
      (await podsOf('web'))
        .filter(available)
        .map((p) => p.metadata!.uid)
        .sort(),
    ).toEqual(before);
  }, 180_000);

  it('makes kubectl drain wait on the budget and go on as pods come back elsewhere', async () => {
    await settled('web', 4, 1);
    const byNode = new Map<string, number>();
    for (const p of await podsOf('web'))
      byNode.set(p.spec!.nodeName, (byNode.get(p.spec!.nodeName) ?? 0) + 1);
    // the node with most of the pods (at least two of four): draining it needs the budget twice
    const [node] = [...byNode.entries()].sort((x, y) => y[1] - x[1])[0]!;
    let drain = { stdout: '', stderr: '', status: null as number | null };
    const most = await mostUnavailable('web', 4, async () => {
      drain = await kubectl(kubeconfig, ['drain', node, '--grace-period=1', '--timeout=150s']);
    });
    expect(drain.status, drain.stderr).toBe(0);
    expect(drain.stderr).toContain(`(will retry after 5s): ${refusal('vpodeviction.kb.io', 'web')}`);
    expect(drain.stdout).toContain(`node/${node} drained`);
    expect(most).toBe(1);
    expect((await podsOf('web')).filter((p) => p.spec?.nodeName === node)).toEqual([]);
    await kubectl(kubeconfig, ['uncordon', node]);
    await client.delete(KruiseResources.CloneSet, 'default', 'web');
    await client.delete(PUB, 'default', 'web');
  }, 240_000);

  it('never lets 200 deletions and evictions at once take more than the budget, five times over', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('crowd', 50));
    await client.create(PUB, budget('crowd', 5));
    const clients = [0, 1, 2, 3].map(() => KubeClient.fromString(cp.kubeconfig()));
    const watch = await watchAvailability(client, 'default', 'app=crowd', 50);
    for (let round = 1; round <= 5; round++) {
      await settled('crowd', 50, 5, 180_000);
      const pods = (await podsOf('crowd')).map((p) => p.metadata!.name!);
      watch.reset();
      const answers = await disruptAtOnce(clients, 'default', pods, 200, 'crowd');
      await settled('crowd', 50, 5, 180_000);
      // every pod change the API server made, in order: never more than 5 of 50 down at once
      expect(watch.most, `round ${round}`).toBeLessThanOrEqual(5);
      expect(watch.most, `round ${round}`).toBeGreaterThan(0);
      // the rest refused in upstream's words, or (pods that went meanwhile) not found
      expect(answers.byBudget, `round ${round}`).toBeGreaterThan(100);
      expect(answers.other).toEqual([]);
    }
    await watch.stop();
    // both replicas served the pod webhook
    for (const m of managers) {
      const text = await fetch(`http://127.0.0.1:${m.metricsPort}/metrics`).then((r) => r.text());
      const served =
        /controller_runtime_webhook_requests_total\{webhook="\/validate-pod",code="200"\} (\d+)/.exec(text);
      expect(Number(served?.[1] ?? 0)).toBeGreaterThan(100);
    }
  }, 900_000);
});
