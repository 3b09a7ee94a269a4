import { Informer, type KubeObject, Resources } from '@kruise/runtime';
import { type CriSystem, LOOP } from './cri-system.ts';
import { figure, print } from './figures.ts';
import { formatWaits, untilQuiet } from './quiet.ts';
import { statefulSetWorkload } from './workloads.ts';

const PODS = 20;
/** Counted rounds, after one warm-up round (the node's first pods, the image's first use). */
const ROUNDS = 5;
/** One scale-up or scale-down must finish within this, or the round fails naming what it saw. */
const ROUND_TIMEOUT_MS = 180_000;
const NAME = 'ordered';

const isReady = (p: KubeObject) =>
  (p.status?.conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );

/** What one round saw: when each pod appeared and turned Ready, by the watch's clock (ms). */
interface RoundTimes {
  created: Map<string, number>;
  ready: Map<string, number>;
}

/**
 * An OrderedReady Advanced StatefulSet scaled 0 → 20 on the real local node and containerd of
 * `sys` (pods really run; no readiness probe, so a pod is Ready once its container runs and its
 * readiness gates are True). Per round: the total, from the replicas change until the 20th pod is
 * Ready, and the pods' own share, Σ over pods of (Ready − created). The controller's share is
 * `(total − Σ) / total`: the time no pod of the set was on its way to Ready, which OrderedReady
 * spends between one pod's Ready and the next one's create. The control plane stores times in
 * whole seconds (creationTimestamp, lastTransitionTime), too coarse for pods that start in well
 * under a second, so both ends are the times a watch in this process saw them: the ADDED event,
 * and the first event with the Ready condition True. Between rounds the set scales to 0 and the
 * machine goes quiet. Figures `statefulset.orderedready-20`, `statefulset.orderedready-20-pods`
 * and `statefulset.orderedready-20-overhead`.
 */
export async function orderedReadyOverhead(sys: CriSystem): Promise<void> {
  const { client, registry } = sys;
  const workload = statefulSetWorkload('OrderedReady');
  const informer = new Informer(client, {
    resource: Resources.Pod,
    namespace: 'default',
    labelSelector: `app=${NAME}`,
  });
  let times: RoundTimes = { created: new Map(), ready: new Map() };
  let waiter: (() => void) | undefined;
  const seen = (p: KubeObject) => {
    const uid = p.metadata?.uid ?? '';
    const now = performance.now();
    if (!times.created.has(uid)) times.created.set(uid, now);
    if (isReady(p) && !times.ready.has(uid)) times.ready.set(uid, now);
    waiter?.();
  };
  informer.addEventHandler({ add: seen, update: (_o, p) => seen(p), delete: () => waiter?.() });
  /** Resolves once `done` holds after an event, or fails after the timeout with `what`. */
  const until = (done: () => boolean, what: () => string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiter = undefined;
        reject(new Error(`${workload.title} ${NAME}: ${what()} in ${ROUND_TIMEOUT_MS / 1000} s`));
      }, ROUND_TIMEOUT_MS);
      waiter = () => {
        if (!done()) return;
        clearTimeout(timer);
        waiter = undefined;
        resolve();
      };
      waiter();
    });
  const scaleTo = (replicas: number) =>
    client.mergePatch(workload.resource, 'default', NAME, { spec: { replicas } });
  /** One scale-up: [total ms, Σ of the pods' create-to-Ready ms]. */
  const round = async (): Promise<[number, number]> => {
    times = { created: new Map(), ready: new Map() };
    const t = performance.now();
    await scaleTo(PODS);
    await until(
      () => times.ready.size === PODS,
      () => `${times.ready.size} of ${PODS} pods Ready (${times.created.size} created)`,
    );
    const total = [...times.ready.values()].reduce((a, b) => Math.max(a, b), 0) - t;
    let own = 0;
    for (const [uid, ready] of times.ready) own += ready - times.created.get(uid)!;
    await scaleTo(0);
    await until(
      () => informer.list().length === 0,
      () => `${informer.list().length} pods left after scaling to 0`,
    );
    return [total, own];
  };
  await client.create(
    workload.resource,
    workload.manifest(NAME, 0, {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'app', image: `${registry}/busybox:v1`, command: LOOP }],
    }),
  );
  informer.start();
  const waited: number[] = [];
  try {
    await informer.waitForSync();
    await round();
    const totals: number[] = [];
    const owns: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      waited.push(await untilQuiet());
      const [total, own] = await round();
      totals.push(total / 1000);
      owns.push(own / 1000);
    }
    print(
      `  ${workload.title} scale 0 -> ${PODS} on one local node, ${ROUNDS} rounds after a warm-up; times as a watch saw them (the API's are whole seconds); each round began once the machine was quiet, after ${formatWaits(waited)} s`,
    );
    figure('statefulset.orderedready-20', totals, {
      label: `OrderedReady scale 0 -> ${PODS}: the replicas change until the ${PODS}th pod is Ready`,
      unit: 's',
      digits: 2,
    });
    figure('statefulset.orderedready-20-pods', owns, {
      label: `the sum of the ${PODS} pods' own times, created (watch ADDED) to Ready (watch)`,
      unit: 's',
      digits: 2,
    });
    figure(
      'statefulset.orderedready-20-overhead',
      totals.map((total, i) => ((total - owns[i]!) / total) * 100),
      { digits: 1 },
    );
  } finally {
    await informer.stop();
    await client.delete(workload.resource, 'default', NAME).catch(() => undefined);
  }
}
