import { KruiseResources, type PodUnavailableBudget } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchAvailability } from '../../../../test/support/availability-watch.ts';
import { disruptAtOnce } from '../../../../test/support/disruption-burst.ts';
import type { ManagerApp } from '../../src/index.ts';
import { cloneSet, eventually, runPod } from '../cloneset/harness.ts';
import { addNode, startEnv } from '../env.ts';

/**
 * Two kruise-manager replicas against one control plane (one leader for the controllers, both
 * serving the webhooks, the control plane spreading its calls over them), pods played as a kubelet
 * would run them: 200 deletions and evictions fired at once from four clients never take more
 * pods than a budget of 5 allows, round after round.
 */
let cp: ControlPlane;
let client: KubeClient;
const apps: ManagerApp[] = [];
let kubelet: { stop(): Promise<void> };

/** Runs pods not yet Ready and ends terminating ones after their grace (as a kubelet would). */
function playKubelet(c: KubeClient): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      const pods = (await c.list(Resources.Pod, { namespace: 'default' }).catch(() => ({ items: [] })))
        .items as Pod[];
      await Promise.all(
        pods.map(async (p) => {
          const name = p.metadata!.name!;
          if (p.metadata?.deletionTimestamp) {
            if (Date.parse(p.metadata.deletionTimestamp) <= Date.now())
              await c
                .delete(Resources.Pod, 'default', name, { gracePeriodSeconds: 0 })
                .catch(() => undefined);
          } else if (!available(p)) await runPod(c, p).catch(() => undefined);
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

beforeAll(async () => {
  const env = await startEnv([], {}, { replicas: 2 });
  cp = env.cp;
  client = env.client;
  apps.push(...env.apps);
  await addNode(client, 'n1');
  kubelet = playKubelet(client);
}, 60_000);
afterAll(async () => {
  await kubelet?.stop();
  await Promise.all(apps.map((a) => a.stop()));
  await cp?.stop();
});

const available = (p: Pod) =>
  !p.metadata?.deletionTimestamp && p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
const crowd = async () =>
  (await client.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=crowd' })).items as Pod[];
const statusOf = async () =>
  ((await client.get(KruiseResources.PodUnavailableBudget, 'default', 'crowd')) as PodUnavailableBudget)
    .status;

describe('a budget under two kruise-manager replicas', () => {
  it('is never over-spent by 200 deletions and evictions at once, five rounds', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('crowd', { replicas: 50 }));
    await client.create(KruiseResources.PodUnavailableBudget, {
      metadata: { name: 'crowd', namespace: 'default' },
      spec: {
        targetRef: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'crowd' },
        maxUnavailable: 5,
      },
    } as KubeObject);
    const clients = [0, 1, 2, 3].map(() => KubeClient.fromString(cp.kubeconfig()));
    const watch = await watchAvailability(client, 'default', 'app=crowd', 50);
    let seen = '';
    const settled = () =>
      eventually(
        async () => {
          const pods = await crowd();
          const status = await statusOf();
          seen = `${pods.length} pods, ${pods.filter(available).length} available, status ${JSON.stringify(status)}`;
          return pods.filter(available).length === 50 && status?.unavailableAllowed === 5;
        },
        { timeoutMs: 60_000, intervalMs: 100, what: '50 pods available and 5 allowed' },
      ).catch((err) => {
        throw new Error(`${err.message}: ${seen}`);
      });
    for (let round = 1; round <= 5; round++) {
      await settled();
      const before = (await crowd()).map((p) => p.metadata!.name!);
      watch.reset();
      const answers = await disruptAtOnce(clients, 'default', before, 200, 'crowd');
      await settled();
      // every pod change the API server made, in order: never more than the budget down at once
      expect(watch.most, `round ${round}`).toBeLessThanOrEqual(5);
      expect(watch.most, `round ${round}`).toBeGreaterThan(0);
      // …and the budget was spent: pods went, the rest of the requests were refused in upstream words
      const now = new Set((await crowd()).map((p) => p.metadata!.name!));
      expect(before.filter((n) => !now.has(n)).length, `round ${round}`).toBeGreaterThanOrEqual(5);
      // the rest refused in upstream's words, or (pods that went meanwhile) not found
      expect(answers.byBudget, `round ${round}`).toBeGreaterThan(100);
      expect(answers.other).toEqual([]);
    }
    await watch.stop();
  }, 240_000);
});
