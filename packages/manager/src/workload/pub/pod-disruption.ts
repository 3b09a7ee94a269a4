import {
  isRecordedInPub,
  POD_PUB_NO_PROTECT_ANNOTATION,
  POD_RELATED_PUB_ANNOTATION,
  type PodUnavailableBudget,
  type PubOperation,
  pubForbiddenMessage,
  pubProtects,
  takeDisruption,
} from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeletContainerHash } from '../inplaceupdate/completion.ts';
import { BudgetConflictError, type PubBudgetKeeper } from './budget-keeper.ts';
import { isPubPodAvailable } from './pod-availability.ts';

/** What deciding a pod disruption needs. */
export interface PodDisruptionDeps {
  keeper: PubBudgetKeeper;
  kubeletHash: KubeletContainerHash;
  /** Gate InPlacePodVerticalScaling: RESIZE is then told apart from UPDATE. */
  inPlacePodVerticalScaling: boolean;
  now: () => Date;
  /**
   * Called when a budget refuses: the pod, the budget and the requester (upstream records the
   * PubPreventPodDeletion event and counts the refusal).
   */
  onRefusal?(pod: Pod, pub: PodUnavailableBudget, username: string): void;
}

/** The answer for one pod disruption. */
export type PodDisruptionDecision =
  | { allowed: true; pub?: PodUnavailableBudget }
  | { allowed: false; message: string; pub?: PodUnavailableBudget };

/**
 * Whether the pod's budget allows `operation` on it, taking one unit of the budget when it does
 * (upstream's PodUnavailableBudgetValidatePod). Allowed without taking anything when the pod opts
 * out (`pub.kruise.io/no-protect: "true"`), is not available already (not ready, or not running
 * what its spec says), has no budget, the budget wants none available, does not protect the
 * operation, or already records the pod. Otherwise one unit is taken with a conditional status
 * write (none when `dryRun`); a refusal answers upstream's Forbidden words.
 */
export async function decidePodDisruption(
  pod: Pod,
  operation: PubOperation,
  username: string,
  dryRun: boolean,
  deps: PodDisruptionDeps,
): Promise<PodDisruptionDecision> {
  const annotations = pod.metadata?.annotations ?? {};
  if (annotations[POD_PUB_NO_PROTECT_ANNOTATION] === 'true') return { allowed: true };
  if (!isPubPodAvailable(pod, deps.kubeletHash)) return { allowed: true };
  const pubName = annotations[POD_RELATED_PUB_ANNOTATION];
  const namespace = pod.metadata?.namespace ?? '';
  if (!pubName) return { allowed: true };
  try {
    await deps.keeper.synced();
  } catch (err) {
    return { allowed: false, message: (err as Error).message };
  }
  const pub = deps.keeper.newest(namespace, pubName);
  if (!pub) return { allowed: true };
  if ((pub.status?.desiredAvailable ?? 0) === 0) return { allowed: true, pub };
  if (!pubProtects(pub, operation, deps.inPlacePodVerticalScaling)) return { allowed: true, pub };
  const podName = pod.metadata?.name ?? '';
  if (isRecordedInPub(pub, podName)) return { allowed: true, pub };
  let decision: PodDisruptionDecision | undefined;
  try {
    decision = await deps.keeper.change<PodDisruptionDecision>(namespace, pubName, (copy) => {
      // Another replica may have recorded this pod since (a retried request): nothing more to take.
      if (isRecordedInPub(copy, podName)) return { write: false, result: { allowed: true, pub: copy } };
      // A dry run decides on a copy of its own: the batch's copy is what gets written.
      const target = dryRun ? structuredClone(copy) : copy;
      const refusal = takeDisruption(target, podName, operation, deps.now());
      if (refusal)
        return {
          write: false,
          result: { allowed: false, message: pubForbiddenMessage(pubName, refusal), pub: copy },
        };
      return { write: !dryRun, result: { allowed: true, pub: copy } };
    });
  } catch (err) {
    if (err instanceof BudgetConflictError)
      return { allowed: false, message: `Timeout: ${err.message}`, pub };
    return { allowed: false, message: (err as Error).message, pub };
  }
  if (decision && !decision.allowed && decision.pub) deps.onRefusal?.(pod, decision.pub, username);
  return decision ?? { allowed: true };
}
