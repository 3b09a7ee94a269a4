import { execFileSync } from 'node:child_process';
import { type CloneSet, KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { eventually } from '../support/poll.ts';
import { LOOP, startCriSystem } from './cri-system.ts';
import { figure, print, sideBySide } from './figures.ts';
import { formatWaits, untilQuiet } from './quiet.ts';

const NODE = 'bench-node';
const PODS = 50;
const ROUNDS = 3;
/** One update of 50 pods must finish within this, or the round fails naming what it saw. */
const ROUND_TIMEOUT_MS = 240_000;
/** Tags of one digest (busybox:v1's): an update between them changes the mechanism's work, never a pull. */
const TAGS = ['same-a', 'same-b'];

type Strategy = 'InPlaceIfPossible' | 'ReCreate';

/**
 * (2) In-place update of 50 running pods vs ReCreate of the same 50, on a real local node and
 * containerd: seconds from the image change until every pod is updated and ready
 * (`updatedReadyReplicas` = 50 at the new generation, every pod running the new image).
 * Both move between two tags of the same digest, so neither pulls; the default maxUnavailable
 * (20 %) paces both.
 */
export async function inPlaceVsReCreate(): Promise<void> {
  const sys = await startCriSystem(NODE);
  const { client, registry } = sys;
  try {
    for (const tag of TAGS)
      execFileSync('skopeo', [
        'copy',
        '--quiet',
        '--src-tls-verify=false',
        '--dest-tls-verify=false',
        `docker://${registry}/busybox:v1`,
        `docker://${registry}/busybox:${tag}`,
      ]);
    const image = (i: number) => `${registry}/busybox:${TAGS[i % 2]}`;
    let current = 0;
    /** Per round: ms after it until the machine was quiet (busy < 20 % for 1 s), before the next began. */
    const waited: number[] = [];
    const pods = async () =>
      (await client.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=upd' })).items.filter(
        (p) => !p.metadata?.deletionTimestamp,
      );
    /** Sets strategy and image in one write; resolves with the seconds until all 50 are updated and ready. */
    const update = async (strategy: Strategy) => {
      current++;
      const img = image(current);
      const before = new Set((await pods()).map((p) => p.metadata!.uid));
      const t = performance.now();
      const cs = (await client.mergePatch(KruiseResources.CloneSet, 'default', 'upd', {
        spec: {
          updateStrategy: { type: strategy },
          template: { spec: { containers: [{ name: 'app', image: img, command: LOOP }] } },
        },
      })) as CloneSet;
      let seen = '';
      try {
        await eventually(
          async () => {
            const got = (await client.get(KruiseResources.CloneSet, 'default', 'upd')) as CloneSet;
            const s = got.status;
            seen = JSON.stringify({
              observedGeneration: s?.observedGeneration,
              replicas: s?.replicas,
              updatedReplicas: s?.updatedReplicas,
              updatedReadyReplicas: s?.updatedReadyReplicas,
            });
            if (!s || s.observedGeneration !== cs.metadata!.generation || s.updatedReadyReplicas !== PODS)
              return false;
            const now = await pods();
            return (
              now.length === PODS &&
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
          `${strategy} update of ${PODS} pods to ${img} not updated and ready in ${ROUND_TIMEOUT_MS / 1000} s; last status ${seen}`,
        );
      }
      const s = (performance.now() - t) / 1000;
      const kept = (await pods()).filter((p) => before.has(p.metadata!.uid)).length;
      // the mechanism must be the one measured: in place keeps every pod, ReCreate replaces every pod
      if (kept !== (strategy === 'ReCreate' ? 0 : PODS))
        throw new Error(`${strategy} update kept ${kept} of ${PODS} pods`);
      // Not measured: the replaced pods' teardown, which goes on after the new ones are ready; the
      // next round starts once it is over, so it pays only for its own work.
      await eventually(
        async () =>
          (await client.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=upd' })).items
            .length === PODS,
        ROUND_TIMEOUT_MS,
        200,
      ).catch(() => {
        throw new Error(`the pods ${strategy} replaced were not gone in ${ROUND_TIMEOUT_MS / 1000} s`);
      });
      // nor what goes on after that (the runtime's and the kernel's cleanup of the old sandboxes)
      waited.push(await untilQuiet());
      return s;
    };
    await client.create(KruiseResources.CloneSet, {
      metadata: { name: 'upd', namespace: 'default' },
      spec: {
        replicas: PODS,
        selector: { matchLabels: { app: 'upd' } },
        updateStrategy: { type: 'ReCreate' },
        template: {
          metadata: { labels: { app: 'upd' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'app', image: image(current), command: LOOP }],
          },
        },
      },
    } as KubeObject);
    await eventually(
      async () => {
        const s = ((await client.get(KruiseResources.CloneSet, 'default', 'upd')) as CloneSet).status;
        return s?.readyReplicas === PODS;
      },
      ROUND_TIMEOUT_MS,
      200,
    ).catch(() => {
      throw new Error(`CloneSet of ${PODS} pods not ready in ${ROUND_TIMEOUT_MS / 1000} s`);
    });
    // warm-up (not measured): both tags on the node, both mechanisms run once
    await update('ReCreate');
    await update('InPlaceIfPossible');
    const seconds = await sideBySide(ROUNDS, {
      inPlace: () => update('InPlaceIfPossible'),
      reCreate: () => update('ReCreate'),
    });
    print(
      `  ${PODS} running pods on one local node, image to a tag of the same digest, maxUnavailable 20%; each round (warm-ups too) followed by a wait until the machine was quiet: ${formatWaits(waited)} s`,
    );
    figure('cloneset.inplace-50', seconds.inPlace, {
      label: `in-place update of ${PODS} pods (until all updated and ready)`,
      unit: 's',
      digits: 2,
    });
    figure('cloneset.recreate-50', seconds.reCreate, {
      label: `ReCreate of the same ${PODS} pods`,
      unit: 's',
      digits: 2,
    });
    figure(
      'cloneset.inplace-vs-recreate',
      seconds.inPlace.map((s, i) => s / seconds.reCreate[i]!),
      { digits: 2 },
    );
  } finally {
    // the CloneSet first, so it does not replace the pods the teardown deletes
    await client.delete(KruiseResources.CloneSet, 'default', 'upd').catch(() => undefined);
    await sys.stop();
  }
}
