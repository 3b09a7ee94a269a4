import type { KubeObject } from '@kruise/runtime';
import { Resources } from '@kruise/runtime';
import { eventually } from '../support/poll.ts';
import { type CriSystem, LOOP } from './cri-system.ts';
import { figure, print, sideBySide } from './figures.ts';
import { formatWaits, untilQuiet } from './quiet.ts';
import { tagSameDigest } from './same-digest.ts';
import type { BenchWorkload, UpdateStrategy } from './workloads.ts';

const ROUNDS = 3;
/** One update of 50 pods must finish within this, or the round fails naming what it saw. */
const ROUND_TIMEOUT_MS = 240_000;
/** Tags of one digest (busybox:v1's): an update between them changes the mechanism's work, never a pull. */
const TAGS = ['same-a', 'same-b'];
const NAME = 'upd';

/** The status an update is followed by: the generation observed, pods ready, pods updated and ready. */
interface UpdateStatus {
  observedGeneration?: number;
  ready?: number;
  updatedReady?: number;
}

/** CloneSet's and Advanced StatefulSet's readings of their status. */
const replicaProgress = (s: Record<string, any>) => ({
  ready: s.readyReplicas,
  updatedReady: s.updatedReadyReplicas,
});

/**
 * In-place update of `podCount` running pods of `workload` (50 of a replica workload on the one local
 * node of `sys`; for a DaemonSet, one per node of `sys`) vs ReCreate of the same pods, on real
 * nodes and containerd: seconds from the image change until every pod is updated and ready (at the
 * new generation, every pod running the new image). Both move between two tags of the same digest,
 * so neither pulls; the workload's pacing (`workload.pacing`) paces both. Figures
 * `<suite>.inplace-<podCount>`, `<suite>.recreate-<podCount>`, `<suite>.inplace-vs-recreate`. The workload
 * is deleted after, and its pods are gone when this resolves.
 */
export async function inPlaceVsReCreate(
  sys: CriSystem,
  workload: BenchWorkload,
  podCount = 50,
  where = 'on one local node',
): Promise<void> {
  const { client, registry } = sys;
  const { suite, resource } = workload;
  tagSameDigest(registry, TAGS);
  const image = (i: number) => `${registry}/busybox:${TAGS[i % 2]}`;
  // InPlaceUpdateReady: an Advanced StatefulSet's InPlaceIfPossible requires it, a CloneSet adds it
  const spec = (img: string) => ({
    readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
    terminationGracePeriodSeconds: 1,
    containers: [{ name: 'app', image: img, command: LOOP }],
  });
  let current = 0;
  /** Per round: ms after it until the machine was quiet (busy < 20 % for 1 s), before the next began. */
  const waited: number[] = [];
  const all = async () =>
    (await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${NAME}` })).items;
  const pods = async () => (await all()).filter((p) => !p.metadata?.deletionTimestamp);
  const status = async (): Promise<UpdateStatus | undefined> => {
    const s = ((await client.get(resource, 'default', NAME)) as KubeObject).status;
    return s && { observedGeneration: s.observedGeneration, ...(workload.progress ?? replicaProgress)(s) };
  };
  /** Sets strategy and image in one write; resolves with the seconds until all 50 are updated and ready. */
  const update = async (strategy: UpdateStrategy) => {
    current++;
    const img = image(current);
    const before = new Set((await pods()).map((p) => p.metadata!.uid));
    const t = performance.now();
    const updated = await client.mergePatch(resource, 'default', NAME, {
      spec: { ...workload.strategy(strategy), template: { spec: { containers: spec(img).containers } } },
    });
    let seen = '';
    try {
      await eventually(
        async () => {
          const s = await status();
          seen = JSON.stringify(s);
          if (!s || s.observedGeneration !== updated.metadata!.generation || s.updatedReady !== podCount)
            return false;
          const now = await pods();
          return (
            now.length === podCount &&
            now.every(
              (p) => p.status?.containerStatuses?.[0]?.image === img && p.status.containerStatuses[0].ready,
            )
          );
        },
        ROUND_TIMEOUT_MS,
        200,
      );
    } catch {
      throw new Error(
        `${workload.title} ${strategy} update of ${podCount} pods to ${img} not updated and ready in ${ROUND_TIMEOUT_MS / 1000} s; last status ${seen}`,
      );
    }
    const s = (performance.now() - t) / 1000;
    const kept = (await pods()).filter((p) => before.has(p.metadata!.uid)).length;
    // the mechanism must be the one measured: in place keeps every pod, ReCreate replaces every pod
    if (kept !== (strategy === 'ReCreate' ? 0 : podCount))
      throw new Error(`${workload.title} ${strategy} update kept ${kept} of ${podCount} pods`);
    // Not measured: the replaced pods' teardown, which goes on after the new ones are ready; the
    // next round starts once it is over, so it pays only for its own work.
    await eventually(async () => (await all()).length === podCount, ROUND_TIMEOUT_MS, 200).catch(() => {
      throw new Error(`the pods ${strategy} replaced were not gone in ${ROUND_TIMEOUT_MS / 1000} s`);
    });
    // nor what goes on after that (the runtime's and the kernel's cleanup of the old sandboxes)
    waited.push(await untilQuiet());
    return s;
  };
  await client.create(resource, workload.manifest(NAME, podCount, spec(image(current))));
  try {
    await eventually(async () => (await status())?.ready === podCount, ROUND_TIMEOUT_MS, 200).catch(() => {
      throw new Error(`${workload.title} of ${podCount} pods not ready in ${ROUND_TIMEOUT_MS / 1000} s`);
    });
    // warm-up (not measured): both tags on the node, both mechanisms run once
    await update('ReCreate');
    await update('InPlaceIfPossible');
    const seconds = await sideBySide(ROUNDS, {
      inPlace: () => update('InPlaceIfPossible'),
      reCreate: () => update('ReCreate'),
    });
    print(
      `  ${workload.title}: ${podCount} running pods ${where}, image to a tag of the same digest, ${workload.pacing}; each round (warm-ups too) followed by a wait until the machine was quiet: ${formatWaits(waited)} s`,
    );
    figure(`${suite}.inplace-${podCount}`, seconds.inPlace, {
      label: `in-place update of ${podCount} pods (until all updated and ready)`,
      unit: 's',
      digits: 2,
    });
    figure(`${suite}.recreate-${podCount}`, seconds.reCreate, {
      label: `ReCreate of the same ${podCount} pods`,
      unit: 's',
      digits: 2,
    });
    figure(
      `${suite}.inplace-vs-recreate`,
      seconds.inPlace.map((s, i) => s / seconds.reCreate[i]!),
      { digits: 2 },
    );
  } finally {
    // the workload first, so it does not replace the pods deleted next
    await client.delete(resource, 'default', NAME).catch(() => undefined);
  }
  await Promise.all(
    (await all()).map((p) =>
      client
        .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 })
        .catch(() => undefined),
    ),
  );
  await eventually(async () => (await all()).length === 0, ROUND_TIMEOUT_MS, 200).catch(() => {
    throw new Error(`the pods of ${workload.title} ${NAME} were not gone in ${ROUND_TIMEOUT_MS / 1000} s`);
  });
}
