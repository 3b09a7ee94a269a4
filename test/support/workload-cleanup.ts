import type { ResourceRef } from '@kruise/kube-compat';
import { type KubeClient, Resources } from '@kruise/runtime';
import { eventually } from './poll.ts';

/**
 * Ends a test file's workloads: every object of `resource` in `default` deleted first, so none
 * makes new pods, then every pod there deleted (1 s grace) while the nodes still run to confirm it,
 * and waited for (at most a minute). Errors are ignored: this runs in `afterAll`, whatever state the
 * tests left.
 */
export async function deleteWorkloadsAndPods(
  client: KubeClient | undefined,
  resource: ResourceRef,
): Promise<void> {
  if (!client) return;
  const workloads = await client.list(resource, { namespace: 'default' }).catch(() => undefined);
  for (const w of workloads?.items ?? [])
    await client.delete(resource, 'default', w.metadata!.name!).catch(() => undefined);
  const left = await client.list(Resources.Pod, { namespace: 'default' }).catch(() => undefined);
  for (const p of left?.items ?? [])
    await client
      .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 })
      .catch(() => undefined);
  await eventually(
    async () => (await client.list(Resources.Pod, { namespace: 'default' })).items.length === 0,
    60_000,
    100,
  ).catch(() => undefined);
}
