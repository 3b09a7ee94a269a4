import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KruiseResources } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import type { Program } from '@kruise/stack/program';
import { startManagerProcess } from '@kruise/stack/program-recipes';
import { eventually } from '../support/poll.ts';
import { figure } from './figures.ts';
import { quantile } from './stats.ts';

const PODS = 200;
/** A tenth of the pods may go: 20 of 200. */
const ALLOWED = 20;
const ROUNDS = 5;
const CLIENTS = 8;

const pod = (name: string, namespace = 'default', app = 'bench'): KubeObject => ({
  metadata: { name, namespace, labels: { app } },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'busybox:v1' }] },
});

/** Creates the pod and reports it Running and Ready, as a kubelet would. */
async function readyPod(
  client: KubeClient,
  name: string,
  namespace = 'default',
  app = 'bench',
): Promise<void> {
  await client.create(Resources.Pod, pod(name, namespace, app));
  await client.mergePatchStatus(Resources.Pod, namespace, name, {
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
      containerStatuses: [
        {
          name: 'main',
          image: 'busybox:v1',
          imageID: 'sha256:bench',
          ready: true,
          restartCount: 0,
          started: true,
        },
      ],
    },
  });
}

/** `/validate-pod`'s latency histogram of one kruise-manager: requests at or under each bucket bound. */
async function validatePodLatency(metricsPort: number): Promise<Map<string, number>> {
  const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
  const out = new Map<string, number>();
  for (const m of text.matchAll(
    /^controller_runtime_webhook_latency_seconds_bucket\{le="([^"]+)",webhook="\/validate-pod"\} (\d+)$/gm,
  ))
    out.set(m[1]!, Number(m[2]));
  return out;
}

/** Deletes the pods all at once, one request each spread over the clients: each one's latency and answer. */
async function deleteAtOnce(
  clients: KubeClient[],
  namespace: string,
  names: string[],
): Promise<{ latencies: number[]; answers: PromiseSettledResult<unknown>[] }> {
  const latencies: number[] = [];
  const answers = await Promise.allSettled(
    names.map(async (name, i) => {
      const start = performance.now();
      try {
        await clients[i % clients.length]!.delete(Resources.Pod, namespace, name, { gracePeriodSeconds: 0 });
      } finally {
        latencies.push(performance.now() - start);
      }
    }),
  );
  return { latencies, answers };
}

/**
 * PodUnavailableBudget: 200 pod DELETEs at once through the control plane, whose pod webhook is
 * served by two kruise-manager replicas (leader election on, the API server spreading its calls
 * over them), against a budget that lets 20 of the 200 pods go; each request's latency from its
 * start. Every round counts the deletions admitted: more than the 20 the budget allowed is an
 * over-spent budget. Deleted pods are created again (and reported Ready) between rounds. Side by
 * side in each round: the same 200 deletions of pods no budget covers (the pod webhook answers
 * at once), and of pods in a namespace the pod webhook skips (the control plane alone).
 */
export async function benchPodUnavailableBudget(): Promise<void> {
  // in this process, to time each admission webhook call as kube-apiserver does
  const cp = await ControlPlane.start();
  const dir = mkdtempSync(join(tmpdir(), 'bench-pub-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  cp.writeKubeconfig(kubeconfigPath);
  const client = KubeClient.load(kubeconfigPath);
  const admissions: number[] = [];
  cp.webhookCallObservers.push((call) => {
    if (call.name === 'vpod.kb.io' && call.operation === 'DELETE') admissions.push(call.durationMs);
  });
  const managers: Program[] = [];
  try {
    await installKruiseApi(client);
    const started = await Promise.all(
      [0, 1].map(() => startManagerProcess(kubeconfigPath, ['--enable-leader-election=true'])),
    );
    managers.push(...started.map((m) => m.program));
    await pointWebhookService(
      client,
      started.map((m) => m.webhookPort),
    );
    await eventually(
      async () =>
        Boolean(
          (
            await client.get(
              Resources.ValidatingWebhookConfiguration,
              undefined,
              'kruise-validating-webhook-configuration',
            )
          ).webhooks?.[0]?.clientConfig?.caBundle,
        ),
      30_000,
      100,
    );
    await client.create(KruiseResources.PodUnavailableBudget, {
      metadata: {
        name: 'bench',
        namespace: 'default',
        annotations: { 'pub.kruise.io/protect-total-replicas': String(PODS) },
      },
      spec: { selector: { matchLabels: { app: 'bench' } }, maxUnavailable: '10%' },
    });
    const names = Array.from({ length: PODS }, (_, i) => `bench-${i}`);
    for (const name of names) await readyPod(client, name);
    await client.create(Resources.Namespace, {
      metadata: { name: 'bench-skipped', labels: { 'control-plane': 'bench' } },
    });
    const clients = Array.from({ length: CLIENTS }, () => KubeClient.load(kubeconfigPath));
    const p99s: number[] = [];
    const admissionP99s: number[] = [];
    const uncoveredAdmissionP99s: number[] = [];
    const servedBefore = await Promise.all(started.map((m) => validatePodLatency(m.metricsPort)));
    const uncovered: number[] = [];
    const skipped: number[] = [];
    const overSpent: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await eventually(
        async () =>
          (await client.get(KruiseResources.PodUnavailableBudget, 'default', 'bench')).status
            ?.unavailableAllowed === ALLOWED,
        60_000,
        50,
      );
      admissions.length = 0;
      const { latencies, answers } = await deleteAtOnce(clients, 'default', names);
      admissionP99s.push(quantile(admissions, 0.99));
      const admitted = answers.filter((a) => a.status === 'fulfilled').length;
      const refused = answers.filter(
        (a) =>
          a.status === 'rejected' && /pub unavailable allowed is negative/.test(String(a.reason?.message)),
      ).length;
      if (admitted + refused !== PODS)
        throw new Error(
          `round ${round}: ${PODS - admitted - refused} failed otherwise: ${answers
            .filter(
              (a) =>
                a.status === 'rejected' &&
                !/pub unavailable allowed is negative/.test(String(a.reason?.message)),
            )
            .map((a) => String((a as PromiseRejectedResult).reason?.message))
            .slice(0, 3)
            .join('; ')}`,
        );
      overSpent.push(admitted > ALLOWED ? 1 : 0);
      p99s.push(quantile(latencies, 0.99));
      // the deleted pods come back, so the budget allows 20 again
      for (const [i, name] of names.entries())
        if (answers[i]!.status === 'fulfilled') await readyPod(client, name);
      // the baselines: the same burst with no budget, and past no webhook at all
      const free = names.map((n) => `free-${round}-${n}`);
      for (const name of free) await readyPod(client, name, 'default', 'free');
      admissions.length = 0;
      uncovered.push(quantile((await deleteAtOnce(clients, 'default', free)).latencies, 0.99));
      uncoveredAdmissionP99s.push(quantile(admissions, 0.99));
      for (const name of free) await readyPod(client, name, 'bench-skipped', 'free');
      skipped.push(quantile((await deleteAtOnce(clients, 'bench-skipped', free)).latencies, 0.99));
    }
    figure('pub.admission-p99-uncovered', uncoveredAdmissionP99s, {
      label: `the same admission p99 for ${PODS} DELETEs at once of pods no budget covers`,
      unit: 'ms',
      digits: 2,
    });
    // kruise-manager's own share: its webhook latency histogram (controller-runtime's buckets)
    const servedAfter = await Promise.all(started.map((m) => validatePodLatency(m.metricsPort)));
    const served = servedAfter.reduce((sum, after, i) => {
      for (const [le, n] of after) sum.set(le, (sum.get(le) ?? 0) + n - (servedBefore[i]!.get(le) ?? 0));
      return sum;
    }, new Map<string, number>());
    const total = served.get('+Inf') ?? 0;
    figure('pub.webhook-within-10ms', [total ? (100 * (served.get('0.01') ?? 0)) / total : 0], {
      label: `pod webhook requests kruise-manager served within 10 ms (of ${total}, both replicas, every round)`,
      unit: '%',
      digits: 1,
    });
    figure('pub.webhook-within-25ms', [total ? (100 * (served.get('0.025') ?? 0)) / total : 0], {
      label: 'pod webhook requests kruise-manager served within 25 ms',
      unit: '%',
      digits: 1,
    });
    figure('pub.delete-p99-uncovered', uncovered, {
      label: `the same ${PODS} DELETEs at once of pods no budget covers (the pod webhook answers at once)`,
      unit: 'ms',
      digits: 2,
    });
    figure('pub.delete-p99-no-webhook', skipped, {
      label: `the same ${PODS} DELETEs at once in a namespace the pod webhook skips (the control plane alone)`,
      unit: 'ms',
      digits: 2,
    });
    figure(
      'pub.delete-p99-vs-no-webhook',
      p99s.map((v, i) => v / skipped[i]!),
      { label: 'pod DELETE p99 with the budget / with no webhook at all', unit: 'x', digits: 2 },
    );
    figure('pub.admission-p99', admissionP99s, {
      label: `pod DELETE admission (vpod.kb.io, as the control plane times the call) p99, ${PODS} at once, two kruise-manager replicas, a budget of ${ALLOWED}`,
      unit: 'ms',
      digits: 2,
    });
    figure('pub.delete-p99', p99s, {
      label: `pod DELETE p99 (the whole request, as the client sees it), ${PODS} at once, a budget of ${ALLOWED}`,
      unit: 'ms',
      digits: 2,
    });
    figure('pub.over-spent', [overSpent.reduce((a, b) => a + b, 0)], {
      label: `rounds (of ${ROUNDS}) in which more deletions were admitted than the budget allowed`,
      unit: '',
      digits: 0,
    });
  } finally {
    await Promise.all(managers.map((m) => m.stop()));
    await cp.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
