import { KruiseResources } from '@kruise/api';
import { type KubeClient, Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import {
  available,
  cloneSet,
  eventsOf,
  eventually,
  getCloneSet,
  image,
  podsOf,
  reconciled,
  runPod,
  setImage,
  statusWhen,
  useCloneSetEnv,
} from './harness.ts';

let client: KubeClient;
const env = useCloneSetEnv(['--expectation-timeout=4s'], (started) => {
  client = started.client;
});

const ready = (name: string, replicas: number) => available(client, name, replicas);
const revisionOf = (p: { metadata?: { labels?: Record<string, string> } }) =>
  p.metadata?.labels?.['controller-revision-hash'];

describe('CloneSet update strategy', () => {
  it('maxUnavailable 1: a second pod is not touched while the first replacement is not ready', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('pace', { replicas: 4, updateStrategy: { maxUnavailable: 1 } }),
    );
    await ready('pace', 4);
    await setImage(client, 'pace', 'busybox:v2');
    await eventually(async () => (await podsOf(client, 'pace')).some((p) => image(p) === 'busybox:v2'));
    // the controller has seen the new pod, not ready: it touches no other pod
    await reconciled(env, 'pace');
    const pods = await podsOf(client, 'pace');
    expect(pods.filter((p) => image(p) === 'busybox:v2')).toHaveLength(1);
    expect(pods.filter((p) => image(p) === 'busybox:v1')).toHaveLength(3);
    // nor marked for replacement (ReCreate marks a pod specified-delete, then deletes it)
    expect(pods.filter((p) => p.metadata?.labels?.['apps.kruise.io/specified-delete'])).toEqual([]);
    const done = await statusWhen(
      client,
      'pace',
      (s) => s.updatedAvailableReplicas === 4 && s.replicas === 4,
    );
    expect(done.currentRevision).toBe(done.updateRevision);
  });

  it('paused: no pod is updated, scaling goes on; resuming updates them', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('paused', { replicas: 2 }));
    await ready('paused', 2);
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'paused', {
      spec: {
        replicas: 3,
        updateStrategy: { paused: true },
        template: { spec: { containers: [{ name: 'main', image: 'busybox:v2' }] } },
      },
    });
    const s = await statusWhen(
      client,
      'paused',
      (st, pods) => pods.length === 3 && st.availableReplicas === 3,
    );
    // the controller has seen the three pods available, the template changed and paused
    await reconciled(env, 'paused');
    const pods = await podsOf(client, 'paused');
    expect(pods.map(image).sort()).toEqual(['busybox:v1', 'busybox:v1', 'busybox:v2']);
    expect(s.updatedReplicas).toBe(1);
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'paused', {
      spec: { updateStrategy: { paused: false } },
    });
    await statusWhen(client, 'paused', (st) => st.updatedAvailableReplicas === 3 && st.replicas === 3);
  });

  it('maxSurge 1 with maxUnavailable 0 creates the new pod before deleting an old one', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('surge', { replicas: 2, updateStrategy: { maxSurge: 1, maxUnavailable: 0 } }),
    );
    await ready('surge', 2);
    await setImage(client, 'surge', 'busybox:v2');
    const pods = await eventually(async () => {
      const p = await podsOf(client, 'surge');
      return p.length === 3 ? p : undefined;
    });
    expect(pods.map(image).sort()).toEqual(['busybox:v1', 'busybox:v1', 'busybox:v2']);
    // the controller has seen the surge pod, not ready: no old pod goes yet
    await reconciled(env, 'surge');
    expect((await podsOf(client, 'surge')).filter((p) => image(p) === 'busybox:v1')).toHaveLength(2);
    await statusWhen(client, 'surge', (st, p) => st.updatedAvailableReplicas === 2 && p.length === 2);
  });

  it('priorityStrategy: the pod with the heavier weight is updated first', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('ranked', {
        replicas: 3,
        updateStrategy: {
          type: 'InPlaceIfPossible',
          maxUnavailable: 1,
          priorityStrategy: {
            weightPriority: [{ weight: 50, matchSelector: { matchLabels: { tier: 'first' } } }],
          },
        },
      }),
    );
    await ready('ranked', 3);
    const chosen = (await podsOf(client, 'ranked'))[1]!;
    await client.mergePatch(Resources.Pod, 'default', chosen.metadata!.name!, {
      metadata: { labels: { tier: 'first' } },
    });
    await setImage(client, 'ranked', 'busybox:v2');
    const first = await eventually(async () => {
      const updated = (await podsOf(client, 'ranked')).filter((p) => image(p) === 'busybox:v2');
      return updated.length ? updated : undefined;
    });
    expect(first.map((p) => p.metadata!.name)).toEqual([chosen.metadata!.name]);
    await statusWhen(client, 'ranked', (s) => s.updatedAvailableReplicas === 3);
  });

  it('InPlaceIfPossible recreates pods when the change is not in-place-able (env)', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('fallback', { replicas: 1, updateStrategy: { type: 'InPlaceIfPossible' } }),
    );
    const [before] = await (async () => {
      await ready('fallback', 1);
      return podsOf(client, 'fallback');
    })();
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'fallback', {
      spec: {
        template: {
          spec: { containers: [{ name: 'main', image: 'busybox:v1', env: [{ name: 'A', value: '1' }] }] },
        },
      },
    });
    await statusWhen(client, 'fallback', (s, pods) => s.updatedAvailableReplicas === 1 && pods.length === 1);
    const [after] = await podsOf(client, 'fallback');
    expect(after!.metadata!.uid).not.toBe(before!.metadata!.uid);
    expect(after!.spec!.containers[0]!.env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('rolls back to the old revision by name when the template returns to it', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('undo', { replicas: 2, updateStrategy: { type: 'InPlaceIfPossible' } }),
    );
    const first = (await ready('undo', 2)).updateRevision!;
    const uids = (await podsOf(client, 'undo')).map((p) => p.metadata!.uid).sort();
    await setImage(client, 'undo', 'busybox:v2');
    const second = (
      await statusWhen(client, 'undo', (s) => s.updatedAvailableReplicas === 2 && s.updateRevision !== first)
    ).updateRevision;
    await setImage(client, 'undo', 'busybox:v1');
    const back = await statusWhen(
      client,
      'undo',
      (s) => s.updatedAvailableReplicas === 2 && s.updateRevision === first,
    );
    expect(back.currentRevision).toBe(first);
    const pods = await podsOf(client, 'undo');
    expect(pods.map(revisionOf)).toEqual([first, first]);
    expect(pods.map((p) => p.metadata!.uid).sort()).toEqual(uids);
    const revisions = (
      await client.list(Resources.ControllerRevision, { namespace: 'default' })
    ).items.filter((r) => r.metadata?.name?.startsWith('undo-'));
    expect(revisions.map((r) => r.metadata!.name).sort()).toEqual([first, second].sort());
    expect(revisions.find((r) => r.metadata!.name === first)!.revision).toBe(3);
  });

  it('revisionHistoryLimit keeps that many revisions beside the live ones', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('history', { replicas: 1, revisionHistoryLimit: 1 }),
    );
    await ready('history', 1);
    for (const tag of ['v2', 'v3', 'v4']) {
      await setImage(client, 'history', `busybox:${tag}`);
      await statusWhen(
        client,
        'history',
        (s, pods) =>
          s.updatedAvailableReplicas === 1 && pods.length === 1 && s.currentRevision === s.updateRevision,
      );
    }
    const names = await eventually(async () => {
      const r = (await client.list(Resources.ControllerRevision, { namespace: 'default' })).items.filter(
        (x) => x.metadata?.name?.startsWith('history-'),
      );
      return r.length === 2 ? r : undefined;
    });
    expect(names.map((r) => r.revision).sort()).toEqual([3, 4]);
  });
});

describe('CloneSet scale strategy', () => {
  it('scaleStrategy.maxUnavailable 1 creates one pod at a time and says ScaleUpLimited', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('slow', { replicas: 3, scaleStrategy: { maxUnavailable: 1 } }),
    );
    const limited =
      'Warning ScaleUpLimited scaleUp is limited because of scaleStrategy.maxUnavailable, limit: 0';
    await eventually(async () => (await podsOf(client, 'slow')).length === 1);
    // the event is written a moment after the reconcile that held the scale-up: wait for it
    await eventually(async () => (await eventsOf(client, 'slow')).includes(limited));
    await reconciled(env, 'slow');
    const pods = await podsOf(client, 'slow');
    expect(pods).toHaveLength(1);
    expect(await eventsOf(client, 'slow')).toContain(limited);
    await runPod(client, pods[0]!);
    await ready('slow', 3);
  });

  it('podsToDelete deletes those pods, replaces them and is emptied', async () => {
    await client.create(KruiseResources.CloneSet, cloneSet('pick', { replicas: 2 }));
    await ready('pick', 2);
    const [victim, keeper] = await podsOf(client, 'pick');
    await client.mergePatch(KruiseResources.CloneSet, 'default', 'pick', {
      spec: { scaleStrategy: { podsToDelete: [victim!.metadata!.name] } },
    });
    await statusWhen(
      client,
      'pick',
      (s, pods) =>
        s.availableReplicas === 2 &&
        pods.length === 2 &&
        !pods.some((p) => p.metadata!.name === victim!.metadata!.name),
    );
    expect((await podsOf(client, 'pick')).map((p) => p.metadata!.name)).toContain(keeper!.metadata!.name);
    const cs = await eventually(async () => {
      const c = await getCloneSet(client, 'pick');
      return c.spec?.scaleStrategy?.podsToDelete === undefined ? c : undefined;
    });
    expect(cs.spec!.scaleStrategy!.podsToDelete).toBeUndefined();
  });

  it('a pod creation the cache never saw does not stall the CloneSet: the expectation is dropped after --expectation-timeout', async () => {
    // the manager's pod watch goes down and cannot come back while the controller creates a pod
    env.cp.faults.failRequests('/pods', 1_000_000, 500, ['watch', 'list']);
    env.cp.faults.dropWatches();
    await client.create(KruiseResources.CloneSet, cloneSet('lost', { replicas: 1 }));
    const first = await eventually(async () =>
      (await eventsOf(client, 'lost'))
        .map((e) => /^Normal SuccessfulCreate succeed to create pod (.+)$/.exec(e)?.[1])
        .find(Boolean),
    );
    const created = (await client.get(Resources.Pod, 'default', first)).metadata!.creationTimestamp!;
    // … and the pod is gone before the watch is back: its creation is never observed
    await client.delete(Resources.Pod, 'default', first, { gracePeriodSeconds: 0 });
    env.cp.faults.compactHistory(); // the watch cannot resume: the informer relists without it
    env.cp.faults.clear();
    const [second] = await eventually(async () => {
      const p = await podsOf(client, 'lost');
      return p.length ? p : undefined;
    });
    expect(second!.metadata!.name).not.toBe(first);
    // the replacement waited for the expectation to time out (4 s; timestamps in whole seconds)
    const waited = Date.parse(second!.metadata!.creationTimestamp!) - Date.parse(created);
    expect(waited).toBeGreaterThanOrEqual(3000);
    await ready('lost', 1);
  });

  it('Progressing turns False with ProgressDeadlineExceeded when pods do not become available in time', async () => {
    await client.create(
      KruiseResources.CloneSet,
      cloneSet('late', { replicas: 1, progressDeadlineSeconds: 1 }),
    );
    const cs = await eventually(async () => {
      const c = await getCloneSet(client, 'late');
      const p = c.status?.conditions?.find((x) => x.type === 'Progressing');
      return p?.reason === 'ProgressDeadlineExceeded' ? c : undefined;
      // the deadline is 1 s; the bound only leaves room for a loaded machine (the controller
      // requeues itself for the deadline, nothing else wakes it)
    }, 45_000);
    expect(cs.status!.conditions!.find((x) => x.type === 'Progressing')).toMatchObject({
      status: 'False',
      message: `CloneSet revision ${cs.status!.updateRevision} has timed out progressing`,
    });
  }, 60_000);
});
