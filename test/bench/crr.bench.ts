import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KruiseResources } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import { eventually } from '../support/poll.ts';
import { LOOP, startCriSystem } from './cri-system.ts';
import { figure, print } from './figures.ts';
import { formatWaits, untilQuiet } from './quiet.ts';
import { quantile } from './stats.ts';

const PODS = 50;
const ROUNDS = 3;

/** StopContainer calls as containerd logged them: container ID → epoch ms (from the log's nanosecond time). */
function stopsInLog(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(
    /time="([^"]+)" level=info msg="StopContainer for \\"([0-9a-f]+)\\" with timeout/g,
  )) {
    if (!out.has(m[2]!)) out.set(m[2]!, Date.parse(m[1]!));
  }
  return out;
}

/**
 * ContainerRecreateRequest latency: 50 pods on one local node, one request each, created together;
 * from each create call to containerd logging its StopContainer (p50, p99), and until all are Completed.
 */
export async function benchCrr(): Promise<void> {
  const sys = await startCriSystem('bench-node');
  const { client, registry, dir } = sys;
  try {
    /** Per round (the warm-up first): ms until the machine was quiet before the requests. */
    const waited: number[] = [];
    const round = async (prefix: string, count: number) => {
      const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
      await Promise.all(
        names.map((name) =>
          client.create(Resources.Pod, {
            metadata: { name, namespace: 'default' },
            spec: {
              nodeName: 'bench-node',
              terminationGracePeriodSeconds: 1,
              containers: [{ name: 'app', image: `${registry}/busybox:v1`, command: LOOP }],
            },
          }),
        ),
      );
      const mine = (o: { metadata?: { name?: string } }) => o.metadata?.name?.startsWith(`${prefix}-`);
      await eventually(
        async () =>
          (await client.list(Resources.Pod, { namespace: 'default' })).items.filter(
            (p) => mine(p) && p.status?.containerStatuses?.[0]?.ready,
          ).length === count,
        120_000,
        200,
      );
      // Let pod start-up (status writes, restarts of the previous round) settle before measuring:
      // the requests go once the machine is mostly idle for a second (20 s at most), not after a fixed pause.
      waited.push(await untilQuiet());
      // Open the bench client's connections first: TLS handshakes of the load generator are not CRR latency.
      await Promise.all(names.map((name) => client.get(Resources.Pod, 'default', name)));
      const sentAt = new Map<string, number>();
      const answeredAt = new Map<string, number>();
      const answered: number[] = [];
      const started = Date.now();
      const created = await Promise.all(
        names.map((name) => {
          sentAt.set(name, Date.now());
          return client
            .create(KruiseResources.ContainerRecreateRequest, {
              metadata: { name, namespace: 'default', labels: { 'bench-round': prefix } },
              spec: { podName: name, containers: [{ name: 'app' }] },
            })
            .then((c) => {
              answeredAt.set(name, Date.now());
              answered.push(Date.now() - sentAt.get(name)!);
              return c;
            });
        }),
      );
      // Only this round's requests, every 100 ms: the observer should not load the API server it measures.
      const crrs = async () =>
        (
          await client.list(KruiseResources.ContainerRecreateRequest, {
            namespace: 'default',
            labelSelector: `bench-round=${prefix}`,
          })
        ).items;
      await eventually(
        async () => (await crrs()).filter((c) => c.status?.phase === 'Completed').length === count,
        120_000,
        100,
      );
      const allDone = Date.now() - started;
      const stops = stopsInLog(readFileSync(join(dir, 's/containerd/containerd.log'), 'utf8'));
      const latencies: number[] = [];
      const afterAnswer: number[] = [];
      for (const c of created) {
        const id = String(c.spec.containers[0].statusContext.containerID).replace('containerd://', '');
        const at = stops.get(id);
        if (at === undefined) continue;
        latencies.push(at - sentAt.get(c.metadata!.name!)!);
        afterAnswer.push(at - answeredAt.get(c.metadata!.name!)!);
      }
      const failed = (await crrs()).filter(
        (c) => c.status?.containerRecreateStates?.[0]?.phase !== 'Succeeded',
      ).length;
      await Promise.all(names.map((name) => client.delete(Resources.Pod, 'default', name)));
      await eventually(
        async () => !(await client.list(Resources.Pod, { namespace: 'default' })).items.some(mine),
        60_000,
        200,
      );
      return {
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        answered: quantile(answered, 0.5),
        afterAnswer: quantile(afterAnswer, 0.5),
        allDone,
        seen: latencies.length,
        failed,
      };
    };
    await round('warm', PODS);
    const rounds: Awaited<ReturnType<typeof round>>[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(`r${r}`, PODS));
    print(
      `  ${PODS} pods on one local node, one request each, created together; ${ROUNDS} rounds after a warm-up; stops seen ${rounds.map((x) => x.seen).join('/')}, not Succeeded ${rounds.map((x) => x.failed).join('/')}; requests sent once the machine was quiet (busy < 20 % for 1 s) after ${formatWaits(waited.slice(1))} s`,
    );
    if (rounds.some((x) => x.seen !== PODS || x.failed > 0))
      throw new Error('a round lost StopContainer calls or had requests that did not succeed');
    figure(
      'crr.stop-p50',
      rounds.map((x) => x.p50),
      { digits: 0 },
    );
    figure(
      'crr.stop-p99',
      rounds.map((x) => x.p99),
      { digits: 0 },
    );
    figure(
      'crr.create-call-p50',
      rounds.map((x) => x.answered),
      {
        label: 'of which the create call itself (API server + mutating webhook), p50',
        unit: 'ms',
        digits: 0,
      },
    );
    figure(
      'crr.answer-to-stop-p50',
      rounds.map((x) => x.afterAnswer),
      {
        label: 'from its answer to StopContainer (watch, kruise-daemon, CRI), p50',
        unit: 'ms',
        digits: 0,
      },
    );
    figure(
      'crr.all-completed',
      rounds.map((x) => x.allDone / 1000),
      {
        label: `until all ${PODS} Completed`,
        unit: 's',
        digits: 2,
      },
    );
  } finally {
    await sys.stop();
  }
}
