import { KruiseResources } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/support/poll.ts';
import { addNode } from '../env.ts';
import { type CronHarness, HOUR, nextHour, runName, startCronHarness } from './harness.ts';

/**
 * AdvancedCronJob with a BroadcastJob or an ImageListPullJob template, on an injected clock: each
 * start time creates its run of that kind, Forbid and Replace observed.
 */
let h: CronHarness;
beforeAll(async () => {
  h = await startCronHarness();
});
afterAll(async () => {
  await h?.stop();
});

async function create(name: string, spec: Record<string, unknown>): Promise<number> {
  // Back to the real time first: the object's first reconcile reads the clock an earlier test moved.
  h.setClock(Date.now());
  await h.client.create(KruiseResources.AdvancedCronJob, {
    metadata: { name, namespace: 'default' },
    spec: { schedule: '@hourly', ...spec },
  } as KubeObject);
  return h.createdAt(name);
}
const names = async (resource: Parameters<CronHarness['runs']>[0], name: string) =>
  (await h.runs(resource, name)).map((j) => j.metadata!.name!);

const broadcastJobTemplate = {
  metadata: { labels: { purpose: 'cleanup' } },
  spec: {
    // Paused, so that no BroadcastJob controller finishes it while the test looks at it.
    paused: true,
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'clean', image: 'busybox:1.36' }] } },
  },
};

describe('an AdvancedCronJob with a BroadcastJob template', () => {
  it('creates a BroadcastJob per start time from the template, and Forbid waits for the active one', async () => {
    const first = nextHour(
      await create('bcj-forbid', { concurrencyPolicy: 'Forbid', template: { broadcastJobTemplate } }),
    );
    await h.at('bcj-forbid', first + 1000);
    const [job] = await h.runs(KruiseResources.BroadcastJob, 'bcj-forbid');
    expect(job?.metadata?.name).toBe(runName('bcj-forbid', first));
    // The template's metadata is pruned by the CRD schema, as upstream's (an embedded ObjectMeta without properties).
    expect(job?.metadata?.labels).toEqual({});
    expect(job?.spec?.template?.spec?.containers?.[0]?.name).toBe('clean');
    const status = await eventually(async () => {
      const s = (await h.get('bcj-forbid')).status;
      return s?.active?.length ? s : undefined;
    });
    expect(status.type).toBe('BroadcastJob');
    expect(status.active).toMatchObject([
      { kind: 'BroadcastJob', apiVersion: 'apps.kruise.io/v1beta1', name: job?.metadata?.name },
    ]);
    await h.at('bcj-forbid', first + HOUR + 1000);
    expect(await names(KruiseResources.BroadcastJob, 'bcj-forbid')).toEqual([runName('bcj-forbid', first)]);
  });

  it('Replace deletes the active BroadcastJob for the new one', async () => {
    const first = nextHour(
      await create('bcj-replace', { concurrencyPolicy: 'Replace', template: { broadcastJobTemplate } }),
    );
    await h.at('bcj-replace', first + 1000);
    await eventually(async () => (await h.get('bcj-replace')).status?.active?.length === 1);
    await h.at('bcj-replace', first + HOUR + 1000);
    expect(await names(KruiseResources.BroadcastJob, 'bcj-replace')).toEqual([
      runName('bcj-replace', first + HOUR),
    ]);
  });
});

const imageListPullJobTemplate = { spec: { images: ['registry.example/app:1.0'], completionPolicy: {} } };

describe('an AdvancedCronJob with an ImageListPullJob template', () => {
  // A node whose daemon never reports: its pulls stay pending, so a run stays active.
  beforeAll(async () => {
    await addNode(h.client, 'silent-node');
    // An ImagePullJob that finds no NodeImage to pull on completes at once: wait for the node's.
    await eventually(() => h.client.get(KruiseResources.NodeImage, undefined, 'silent-node'));
  });

  it('creates an ImageListPullJob per start time, replacing the active one (its default policy)', async () => {
    const first = nextHour(await create('pull-replace', { template: { imageListPullJobTemplate } }));
    expect((await h.get('pull-replace')).spec.concurrencyPolicy).toBe('Replace');
    await h.at('pull-replace', first + 1000);
    const [job] = await h.runs(KruiseResources.ImageListPullJob, 'pull-replace');
    expect(job?.metadata?.name).toBe(runName('pull-replace', first));
    expect(job?.spec).toMatchObject({
      images: ['registry.example/app:1.0'],
      completionPolicy: { type: 'Always' },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 3 },
    });
    await eventually(async () => {
      const status = (await h.get('pull-replace')).status;
      return status?.type === 'ImageListPullJob' && status.active?.length === 1;
    });
    await h.at('pull-replace', first + HOUR + 1000);
    expect(await names(KruiseResources.ImageListPullJob, 'pull-replace')).toEqual([
      runName('pull-replace', first + HOUR),
    ]);
  });

  it('Forbid skips a start time while the ImageListPullJob is active', async () => {
    const first = nextHour(
      await create('pull-forbid', { concurrencyPolicy: 'Forbid', template: { imageListPullJobTemplate } }),
    );
    await h.at('pull-forbid', first + 1000);
    await eventually(async () => (await h.get('pull-forbid')).status?.active?.length === 1);
    await h.at('pull-forbid', first + HOUR + 1000);
    expect(await names(KruiseResources.ImageListPullJob, 'pull-forbid')).toEqual([
      runName('pull-forbid', first),
    ]);
  });
});
