import { KruiseResources } from '@kruise/api';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import type { Program } from '@kruise/stack/program';
import { startManagerProcess } from '@kruise/stack/program-recipes';
import { eventually } from '../support/poll.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { figure } from './figures.ts';
import { quantile } from './stats.ts';

const PODS = 200;
/** A tenth of the pods may go: 20 of 200. */
const ALLOWED = 20;
const ROUNDS = 5;
const CLIENTS = 8;

const pod = (name: string): KubeObject => ({
  metadata: { name, namespace: 'default', labels: { app: 'bench' } },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'busybox:v1' }] },
});

/** Creates the pod and reports it Running and Ready, as a kubelet would. */
async function readyPod(client: KubeClient, name: string): Promise<void> {
  await client.create(Resources.Pod, pod(name));
  await client.mergePatchStatus(Resources.Pod, 'default', name, {
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

/**
 * PodUnavailableBudget: 200 pod DELETEs at once through the control plane, whose pod webhook is
 * served by two kruise-manager replicas (leader election on, the API server spreading its calls
 * over them), against a budget that lets 20 of the 200 pods go; each request's latency from its
 * start. Every round counts the deletions admitted: more than the 20 the budget allowed is an
 * over-spent budget. Deleted pods are created again (and reported Ready) between rounds.
 */
export async function benchPodUnavailableBudget(): Promise<void> {
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  const managers: Program[] = [];
  try {
    await installKruiseApi(client);
    const started = await Promise.all(
      [0, 1].map(() => startManagerProcess(cp.kubeconfigPath, ['--enable-leader-election=true'])),
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
    const clients = Array.from({ length: CLIENTS }, () => KubeClient.load(cp.kubeconfigPath));
    const p99s: number[] = [];
    const overSpent: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await eventually(
        async () =>
          (await client.get(KruiseResources.PodUnavailableBudget, 'default', 'bench')).status
            ?.unavailableAllowed === ALLOWED,
        60_000,
        50,
      );
      const latencies: number[] = [];
      const answers = await Promise.allSettled(
        names.map(async (name, i) => {
          const start = performance.now();
          try {
            await clients[i % CLIENTS]!.delete(Resources.Pod, 'default', name, { gracePeriodSeconds: 0 });
          } finally {
            latencies.push(performance.now() - start);
          }
        }),
      );
      const admitted = answers.filter((a) => a.status === 'fulfilled').length;
      const refused = answers.filter(
        (a) =>
          a.status === 'rejected' && /pub unavailable allowed is negative/.test(String(a.reason?.message)),
      ).length;
      if (admitted + refused !== PODS)
        throw new Error(`round ${round}: ${PODS - admitted - refused} failed otherwise`);
      overSpent.push(admitted > ALLOWED ? 1 : 0);
      p99s.push(quantile(latencies, 0.99));
      // the deleted pods come back, so the budget allows 20 again
      for (const [i, name] of names.entries())
        if (answers[i]!.status === 'fulfilled') await readyPod(client, name);
    }
    figure('pub.delete-p99', p99s, {
      label: `pod DELETE p99 through the control plane, ${PODS} at once, two kruise-manager replicas, a budget of ${ALLOWED}`,
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
  }
}
