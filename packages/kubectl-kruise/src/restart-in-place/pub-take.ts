import { KruiseResources } from '@kruise/api/kinds';
import { hasUnavailableLabel, isRecordedInPub, pubProtects, takeDisruption } from '@kruise/api/pub-budget';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { isConflict, isForbidden, isNotFound } from '@kruise/runtime/kube/errors';
import { isReady } from './coverage.ts';
import type { Pub } from './pub-limits.ts';

/** The calls taking a disruption out of a PodUnavailableBudget makes. */
export type PubTakeClient = Pick<KubeClient, 'get' | 'updateStatus'>;

/** What came of asking a budget for one pod's restart. */
export type TakeOutcome =
  /** Nothing to take: the budget is gone, protects no UPDATE, wants none available, or has the pod recorded already. */
  | { kind: 'free' }
  /** One disruption taken: the pod is recorded in the budget's unavailablePods. */
  | { kind: 'taken' }
  /** The budget allows no more unavailable pods (upstream's cause). */
  | { kind: 'refused'; cause: string }
  /** Every try met a newer version of the budget. */
  | { kind: 'conflicts' }
  /** The user may not update the budget's status (the server's message). */
  | { kind: 'forbidden'; message: string };

/** How many times a take re-reads the budget after a conflict before it gives up for now. */
export const TAKE_TRIES = 5;

/**
 * Takes one disruption out of the budget for a pod's in-place restart, as kruise-manager's pod
 * webhook does for an in-place UPDATE: reads the budget, decides (upstream's order: desiredAvailable
 * 0, UPDATE not protected, pod already recorded → nothing to take; no unavailable pod allowed →
 * refused), and writes its status with the resourceVersion just read; a conflict re-reads and
 * decides again, up to `tries` times.
 * @throws the API error of a read or write that fails otherwise.
 */
export async function takePubDisruption(
  client: PubTakeClient,
  namespace: string,
  pubName: string,
  podName: string,
  now: () => Date,
  tries = TAKE_TRIES,
): Promise<TakeOutcome> {
  for (let i = 0; i < tries; i++) {
    let pub: Pub;
    try {
      pub = await client.get<Pub>(KruiseResources.PodUnavailableBudget, namespace, pubName);
    } catch (err) {
      if (isNotFound(err)) return { kind: 'free' };
      throw err;
    }
    if ((pub.status?.desiredAvailable ?? 0) === 0) return { kind: 'free' };
    if (!pubProtects(pub, 'UPDATE', false) || isRecordedInPub(pub, podName)) return { kind: 'free' };
    const cause = takeDisruption(pub, podName, 'UPDATE', now());
    if (cause) return { kind: 'refused', cause };
    try {
      await client.updateStatus(KruiseResources.PodUnavailableBudget, pub);
      return { kind: 'taken' };
    } catch (err) {
      if (isNotFound(err)) return { kind: 'free' };
      if (isForbidden(err)) return { kind: 'forbidden', message: err.message };
      if (!isConflict(err)) throw err;
    }
  }
  return { kind: 'conflicts' };
}

/**
 * Whether a pod's going down costs a budget anything (upstream: Running and Ready, without an
 * `unavailable-pod.kruise.io/*` label).
 */
export function podCountsForBudget(pod: KubeObject): boolean {
  return pod.status?.phase === 'Running' && isReady(pod) && !hasUnavailableLabel(pod.metadata?.labels);
}

/** Whether a pod's restart may start now, and if not, which budget holds it back (when one refused). */
export interface Admission {
  start: boolean;
  blockedBy?: string;
}

/**
 * The restart's gate in front of each pod: a pod covered by a PodUnavailableBudget starts only
 * once a disruption is taken out of that budget for it. When the user may not update budgets'
 * status, one warning is printed and from then on pods start on the read-only limits alone.
 */
export function pubAdmission(
  client: PubTakeClient,
  namespace: string,
  o: { now: () => Date; out: (line: string) => void; tries?: number },
): { admit(pod: KubeObject, pubName: string | undefined): Promise<Admission> } {
  let readOnly = false;
  return {
    async admit(pod, pubName) {
      if (!pubName || readOnly || !podCountsForBudget(pod)) return { start: true };
      const outcome = await takePubDisruption(client, namespace, pubName, pod.metadata!.name, o.now, o.tries);
      switch (outcome.kind) {
        case 'free':
        case 'taken':
          return { start: true };
        case 'refused':
          return { start: false, blockedBy: `podunavailablebudget/${pubName}` };
        case 'conflicts':
          return { start: false };
        case 'forbidden':
          readOnly = true;
          o.out(
            `warning: cannot update podunavailablebudgets/status (policy.kruise.io) in namespace ${namespace}, so the restart does not record its pods in the PodUnavailableBudgets; it keeps within them as it reads them (${outcome.message})`,
          );
          return { start: true };
      }
    },
  };
}
