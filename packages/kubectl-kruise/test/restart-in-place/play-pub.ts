import { desiredAvailable, KruiseResources, type PodUnavailableBudget } from '@kruise/api';
import type { KubeClient, KubeObject } from '@kruise/runtime';
import { podsOf } from '../../../manager/test/cloneset/harness.ts';

type Pub = PodUnavailableBudget & KubeObject;

/** kruise-manager's PodUnavailableBudget controller, played by a test until stopped. */
export interface PlayedPubController {
  /** While true the status is left as it is. */
  paused: boolean;
  /** Every pod seen recorded in the budget's unavailablePods or disruptedPods. */
  recorded: Set<string>;
  stop(): Promise<void>;
}

/**
 * Plays the PUB controller for the budget `name` over the pods labelled `app=<app>`: a record is
 * dropped `holdMs` after its time (upstream: 10 s), and the status is recomputed as upstream does
 * (currentAvailable: Ready pods not recorded; unavailableAllowed: currentAvailable −
 * desiredAvailable, at least 0), written with the resourceVersion read (a conflict waits for the
 * next round).
 */
export function playPubController(
  client: KubeClient,
  name: string,
  app: string,
  holdMs = 3000,
): PlayedPubController {
  let playing = true;
  const played: PlayedPubController = { paused: false, recorded: new Set(), stop: async () => {} };
  const loop = (async () => {
    while (playing) {
      await new Promise((r) => setTimeout(r, 100));
      if (played.paused) continue;
      const pub = await client.get<Pub>(KruiseResources.PodUnavailableBudget, 'default', name);
      const pods = await podsOf(client, app);
      const names = new Set(pods.map((p) => p.metadata!.name!));
      const kept = (records: Record<string, string> | undefined) =>
        Object.fromEntries(
          Object.entries(records ?? {}).filter(([pod, at]) => {
            played.recorded.add(pod);
            return names.has(pod) && Date.parse(at) + holdMs > Date.now();
          }),
        );
      const unavailablePods = kept(pub.status?.unavailablePods);
      const disruptedPods = kept(pub.status?.disruptedPods);
      const desired = desiredAvailable(pub, pods.length);
      const current = pods.filter(
        (p) =>
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
          !unavailablePods[p.metadata!.name!] &&
          !disruptedPods[p.metadata!.name!],
      ).length;
      const status = {
        observedGeneration: pub.metadata!.generation,
        unavailablePods,
        disruptedPods,
        unavailableAllowed: Math.max(0, current - desired),
        currentAvailable: current,
        desiredAvailable: desired,
        totalReplicas: pods.length,
      };
      if (JSON.stringify(status) === JSON.stringify({ ...status, ...pub.status })) continue;
      await client
        .updateStatus(KruiseResources.PodUnavailableBudget, { ...pub, status })
        .catch(() => undefined);
    }
  })();
  played.stop = async () => {
    playing = false;
    await loop;
  };
  return played;
}
