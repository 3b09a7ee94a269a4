import { KruiseResources } from '@kruise/api';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from '@kruise/stack/cluster-bootstrap';
import { startManagerProcess } from '@kruise/stack/program-recipes';
import { eventually } from '../support/poll.ts';
import { startControlPlaneProcess } from './control-plane-process.ts';
import { figure } from './figures.ts';
import { quantile } from './stats.ts';

const CREATES = 300;
const ROUNDS = 3;
const COUNTS = [0, 10, 100] as const;

/** SidecarSet `svc-<i>`: one sidecar for pods labelled `app: svc-<i>` (pods match one SidecarSet at most). */
const sidecarSet = (i: number): KubeObject => ({
  metadata: { name: `svc-${i}` },
  spec: {
    selector: { matchLabels: { app: `svc-${i}` } },
    containers: [
      {
        name: 'agent',
        image: 'busybox:v1',
        podInjectPolicy: 'AfterAppContainer',
        shareVolumePolicy: { type: 'enabled' },
        transferEnv: [{ sourceContainerName: 'main', envName: 'REGION' }],
      },
    ],
  },
});

/** A pod of `app: svc-<i>` (dry run: admitted, not stored). */
const pod = (i: number): KubeObject => ({
  metadata: { generateName: 'bench-', namespace: 'default', labels: { app: `svc-${i}` } },
  spec: { containers: [{ name: 'main', image: 'busybox:v1', env: [{ name: 'REGION', value: 'x' }] }] },
});

/**
 * SidecarSet injection: pod CREATE (server dry run) through the control plane's API, which calls
 * kruise-manager's pod webhook, with 0, 10 and 100 SidecarSets present; p99 of `CREATES`
 * sequential creates per round, and the p99 at 100 over the p99 at 0.
 */
export async function benchSidecarSetInjection(): Promise<void> {
  const cp = await startControlPlaneProcess();
  const client = KubeClient.load(cp.kubeconfigPath);
  let manager: Awaited<ReturnType<typeof startManagerProcess>>['program'] | undefined;
  try {
    await installKruiseApi(client);
    const started = await startManagerProcess(cp.kubeconfigPath);
    manager = started.program;
    await pointWebhookService(client, started.webhookPort);
    await eventually(
      async () =>
        Boolean(
          (
            await client.get(
              Resources.MutatingWebhookConfiguration,
              undefined,
              'kruise-mutating-webhook-configuration',
            )
          ).webhooks?.[0]?.clientConfig?.caBundle,
        ),
      30_000,
      100,
    );
    const p99s: Record<number, number[]> = {};
    let present = 0;
    for (const count of COUNTS) {
      for (; present < count; present++) await client.create(KruiseResources.SidecarSet, sidecarSet(present));
      // The webhook reads its cache: wait until the newest SidecarSet injects.
      if (count > 0)
        await eventually(
          async () =>
            (await client.create(Resources.Pod, pod(count - 1), { dryRun: true })).spec.containers.length ===
            2,
          30_000,
          50,
        );
      const target = count > 0 ? 0 : 1;
      for (let i = 0; i < 50; i++) await client.create(Resources.Pod, pod(target), { dryRun: true }); // warm-up
      p99s[count] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const latencies: number[] = [];
        for (let i = 0; i < CREATES; i++) {
          const start = performance.now();
          const created = await client.create(Resources.Pod, pod(target), { dryRun: true });
          latencies.push(performance.now() - start);
          if (count > 0 && created.spec.containers.length !== 2) throw new Error('the pod was not injected');
        }
        p99s[count]!.push(quantile(latencies, 0.99));
      }
      figure(`sidecarset-injection.p99-${count}`, p99s[count]!, {
        label: `pod CREATE (dry run) p99 through the API with ${count} SidecarSets`,
        unit: 'ms',
        digits: 2,
      });
    }
    figure(
      'sidecarset-injection.p99-ratio',
      p99s[100]!.map((v, i) => v / p99s[0]![i]!),
      { digits: 2 },
    );
  } finally {
    await manager?.stop();
    await cp.stop();
  }
}
