import type { CloneSet } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PluginRunner, pluginRunner } from '../../packages/kubectl-kruise/test/plugin-env.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * kubectl-kruise against the real node: `kubectl kruise set image` sends only the image change, so
 * the CloneSet updates its pods in place on containerd (same pod UIDs, one container restart), and
 * `rollout status` follows that update to its end; `rollout undo` goes back the same way.
 */
const NODE = 'kubectl-kruise-node';
let sys: System;
let plugin: PluginRunner;
beforeAll(async () => {
  sys = await startSystem(NODE);
  plugin = pluginRunner(sys.cp);
}, 120_000);
afterAll(async () => {
  plugin?.dispose();
  await sys?.stop();
});

const image = (tag: string) => `${sys.registry}/busybox:${tag}`;
const pods = async () =>
  (
    (await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=web' }))
      .items as KubeObject[]
  )
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
/** Waits until the CloneSet observed its generation and every pod runs `tag`, ready. */
const allAt = (tag: string) =>
  until(async () => {
    const cs = (await sys.client.get(Resources.CloneSet, 'default', 'web')) as CloneSet & KubeObject;
    if (cs.status?.observedGeneration !== cs.metadata?.generation || cs.status?.updatedReadyReplicas !== 2)
      return undefined;
    const p = await pods();
    const ok = p.length === 2 && p.every((x) => x.status?.containerStatuses?.[0]?.image === image(tag));
    return ok && p.every((x) => x.status?.containerStatuses?.[0]?.ready) ? p : undefined;
  }, 60_000);

describe('kubectl kruise on a real node', () => {
  it('set image updates the pods in place: same UIDs, one restart; rollout status follows it; undo too', async () => {
    await sys.client.create(Resources.CloneSet, {
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        updateStrategy: { type: 'InPlaceIfPossible' },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              { name: 'app', image: image('v1'), command: LOOP, env: [{ name: 'MODE', value: 'a' }] },
            ],
          },
        },
      },
    });
    const before = await allAt('v1');
    const uids = before.map((p) => p.metadata!.uid);

    const set = await plugin.kruise(['set', 'image', 'cloneset/web', `app=${image('v2')}`]);
    expect(set).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web image updated\n', err: '' });
    const status = await plugin.kruise(['rollout', 'status', 'cloneset/web', '--timeout=90s']);
    expect(status.code).toBe(0);
    expect(status.out.trim().split('\n').at(-1)).toBe(
      'partitioned roll out complete: 2 new pods have been updated...',
    );
    const after = await allAt('v2');
    expect(after.map((p) => p.metadata!.uid)).toEqual(uids);
    expect(after.map((p) => p.status!.containerStatuses![0]!.restartCount)).toEqual([1, 1]);

    const undo = await plugin.kruise(['rollout', 'undo', 'cloneset/web']);
    expect(undo).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web rolled back\n', err: '' });
    const back = await allAt('v1');
    expect(back.map((p) => p.metadata!.uid)).toEqual(uids);
    expect(back.map((p) => p.status!.containerStatuses![0]!.restartCount)).toEqual([2, 2]);
  });
});
