import { KruiseResources, type SidecarSet } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { eventually } from '../support/poll.ts';
import { injectedPod, stampedSidecarSet } from '../support/sidecarset.ts';
import { type CriSystem, LOOP } from './cri-system.ts';
import { figure, print, sideBySide } from './figures.ts';
import { pool } from './pool.ts';
import { untilQuiet } from './quiet.ts';
import { tagSameDigest } from './same-digest.ts';

const PODS = 100;
const ROUNDS = 3;
const ROUND_TIMEOUT_MS = 300_000;
/** Tags of one digest: an update between them never pulls. */
const TAGS = ['same-a', 'same-b'];
const NAME = 'ssbench';
const CONCURRENCY = 16;

/**
 * A cold sidecar upgrade of `PODS` running pods on one local node (SidecarSet, maxUnavailable
 * 100%: the sidecar image changed in place) vs recreating those pods with the new sidecar (all
 * deleted, all created again as injection leaves them): seconds from the change until every pod
 * runs the new sidecar and is Ready. Figures `sidecarset.inplace-100`, `sidecarset.recreate-100`,
 * `sidecarset.inplace-vs-recreate`.
 */
export async function sidecarInPlaceVsReCreate(sys: CriSystem): Promise<void> {
  const { client, registry } = sys;
  tagSameDigest(registry, TAGS);
  const image = (i: number) => `${registry}/busybox:${TAGS[i % 2]}`;
  let current = 0;
  const all = async () =>
    (await client.list(Resources.Pod, { namespace: 'default', labelSelector: `app=${NAME}` })).items;
  const sidecarSet = (img: string, type: 'RollingUpdate' | 'NotUpdate') =>
    stampedSidecarSet({
      apiVersion: 'apps.kruise.io/v1beta1',
      kind: 'SidecarSet',
      metadata: { name: NAME },
      spec: {
        selector: { matchLabels: { app: NAME } },
        containers: [{ name: 'sidecar', image: img, command: LOOP }],
        updateStrategy: { type, maxUnavailable: '100%' },
      },
    } as SidecarSet);
  /** Writes the SidecarSet (image and strategy) and returns it as stored. */
  const write = async (img: string, type: 'RollingUpdate' | 'NotUpdate') => {
    const stored = await client.get(KruiseResources.SidecarSet, undefined, NAME);
    const next = sidecarSet(img, type);
    return (await client.update(KruiseResources.SidecarSet, {
      ...next,
      metadata: { ...stored.metadata, annotations: (next.metadata as KubeObject['metadata'])?.annotations },
    } as KubeObject)) as SidecarSet;
  };
  const createPods = (stored: SidecarSet) =>
    pool(
      Array.from({ length: PODS }, (_, i) => `${NAME}-${current}-${i}`),
      CONCURRENCY,
      (name) =>
        client.create(
          Resources.Pod,
          injectedPod(
            stored,
            {
              metadata: { name, namespace: 'default', labels: { app: NAME } },
              spec: {
                terminationGracePeriodSeconds: 1,
                containers: [{ name: 'app', image: image(0), command: LOOP }],
              },
            },
            { command: LOOP },
          ),
        ),
    );
  const allRun = (img: string) =>
    eventually(
      async () => {
        const pods = (await all()).filter((p) => !p.metadata?.deletionTimestamp);
        return (
          pods.length === PODS &&
          pods.every(
            (p) =>
              p.status?.conditions?.some(
                (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
              ) &&
              p.status?.containerStatuses?.find((s: { name: string }) => s.name === 'sidecar')?.image === img,
          )
        );
      },
      ROUND_TIMEOUT_MS,
      200,
    );
  const gone = () => eventually(async () => (await all()).length === PODS, ROUND_TIMEOUT_MS, 200);
  const inPlace = async () => {
    current++;
    const img = image(current);
    const t = performance.now();
    await write(img, 'RollingUpdate');
    await allRun(img);
    const s = (performance.now() - t) / 1000;
    await untilQuiet();
    return s;
  };
  const reCreate = async () => {
    current++;
    const img = image(current);
    const t = performance.now();
    const stored = await write(img, 'NotUpdate');
    const old = await all();
    await pool(old, CONCURRENCY, (p) =>
      client.delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 }),
    );
    await createPods(stored);
    await allRun(img);
    const s = (performance.now() - t) / 1000;
    await gone();
    await untilQuiet();
    return s;
  };
  await client.create(KruiseResources.SidecarSet, sidecarSet(image(0), 'NotUpdate') as KubeObject);
  try {
    const stored = await eventually(async () => {
      const s = (await client.get(KruiseResources.SidecarSet, undefined, NAME)) as SidecarSet;
      return s.status?.latestRevision ? s : undefined;
    }, 30_000);
    await createPods(stored);
    await allRun(image(0));
    await reCreate();
    await inPlace();
    const seconds = await sideBySide(ROUNDS, { inPlace, reCreate });
    print(`  SidecarSet: ${PODS} running pods on one local node, sidecar image to a tag of the same digest`);
    figure('sidecarset.inplace-100', seconds.inPlace, {
      label: `in-place sidecar upgrade of ${PODS} pods (until all run it and are Ready)`,
      unit: 's',
      digits: 2,
    });
    figure('sidecarset.recreate-100', seconds.reCreate, {
      label: `recreating the same ${PODS} pods with the new sidecar`,
      unit: 's',
      digits: 2,
    });
    figure(
      'sidecarset.inplace-vs-recreate',
      seconds.inPlace.map((s, i) => s / seconds.reCreate[i]!),
      { digits: 2 },
    );
  } finally {
    await client.delete(KruiseResources.SidecarSet, undefined, NAME).catch(() => undefined);
    await Promise.all(
      (await all()).map((p) =>
        client
          .delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 })
          .catch(() => undefined),
      ),
    );
    await eventually(async () => (await all()).length === 0, ROUND_TIMEOUT_MS, 200).catch(() => undefined);
  }
}
