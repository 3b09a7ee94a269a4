import type { StatefulSet, StatefulSetStatus } from '@kruise/api';
import { intPercentValue } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodAllHooked, LIFECYCLE_STATE_LABEL, lifecycleState } from '../../workload/lifecycle/state.ts';
import { doItSlowly } from '../../workload/slow-start.ts';
import type { RequeueAfter } from '../cloneset/context.ts';
import { type StatefulSetDeps, setKey } from './context.ts';
import type { StatefulPodControl } from './pod-control.ts';
import {
  isCreated,
  isFailed,
  isPending,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  runningAndAvailable,
} from './pod-health.ts';
import type { PodSteps } from './pod-steps.ts';
import { setCondition, trueCondition } from './status.ts';

/** How the replica pass ended: go on, stop this round, or go straight to the rolling update. */
export type ReplicaPass = 'continue' | 'exit' | 'update';

/** What one round's scale steps see. */
export interface ScaleRound {
  set: StatefulSet;
  /** The set as of its update revision (what pods are updated to). */
  updateSet: StatefulSet;
  updateRevision: string;
  replicas: (Pod | undefined)[];
  condemned: Pod[];
  status: StatefulSetStatus;
  requeue: RequeueAfter;
  minReadySeconds: number;
  /** Whether a pod at slot `i` is one the rolling update replaces now (a stuck one may go to it). */
  updatableNow(i: number): boolean;
}

const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * `scaleStrategy.maxUnavailable` as a number of pods (rounded down, at least 1), or undefined when
 * unset: how many pods a Parallel set may have unavailable while it scales.
 */
export function scaleBudget(set: StatefulSet): { left: number } | undefined {
  const max = set.spec?.scaleStrategy?.maxUnavailable;
  if (max === undefined || max === null) return undefined;
  return { left: Math.max(1, intPercentValue(max, set.spec?.replicas ?? 1, false)) };
}

/** Takes one from the budget; true when that used it up (upstream's decreaseAndCheckMaxUnavailable). */
const spend = (budget: { left: number } | undefined) => budget !== undefined && --budget.left <= 0;

/**
 * The scale steps of a reconcile (upstream's processReplica and processCondemned): each replica in
 * ordinal order is recreated when it Failed or Succeeded, created when missing (after its claims),
 * waited for while not running and available (OrderedReady), given its identity and claim owners;
 * then the condemned are deleted, highest ordinal first. OrderedReady does one thing at a time;
 * Parallel does them all, within scaleStrategy.maxUnavailable, creating pods concurrently in batches
 * of 1, 2, 4 … (upstream creates them one by one).
 */
export class ScaleSteps {
  private readonly d: StatefulSetDeps;
  private readonly podControl: StatefulPodControl;
  private readonly steps: PodSteps;

  constructor(deps: StatefulSetDeps, podControl: StatefulPodControl, steps: PodSteps) {
    this.d = deps;
    this.podControl = podControl;
    this.steps = steps;
  }

  /** The replica pass; returns how the round goes on. */
  async replicas(round: ScaleRound): Promise<ReplicaPass> {
    const { set, replicas } = round;
    const monotonic = set.spec?.podManagementPolicy !== 'Parallel';
    const budget = scaleBudget(set);
    const toCreate: Pod[] = [];
    for (let i = 0; i < replicas.length; i++) {
      const pod = replicas[i];
      if (!pod) continue;
      if (isFailed(pod) || isSucceeded(pod)) {
        if (spend(budget)) break;
        if (!pod.metadata?.deletionTimestamp) await this.steps.deletePod(set, pod);
        if (monotonic) return 'exit';
        continue;
      }
      if (!isCreated(pod)) {
        if (this.d.gates.enabled('StatefulSetAutoDeletePVC') && this.podControl.podClaimIsStale(set, pod)) {
          if (monotonic) return 'exit';
          continue;
        }
        const withState = this.startState(set, pod);
        if (monotonic) {
          await this.create(round, [withState]);
          return 'exit';
        }
        toCreate.push(withState);
        if (spend(budget)) break;
        continue;
      }
      if (isPending(pod)) await this.podControl.createClaims(set, pod);
      if (isTerminating(pod)) {
        if (monotonic) return 'exit';
        if (spend(budget)) break;
      }
      const refreshed = await this.steps.refreshPodState(set, pod, round.updateRevision);
      round.requeue.push(refreshed.delayMs);
      // the rest of the round sees the pod as stored (upstream reads its cache again, and so writes
      // the same condition and lifecycle state a second time in the rolling update)
      replicas[i] = refreshed.pod;
      if (monotonic || budget) {
        const { available, waitMs } = runningAndAvailable(refreshed.pod, round.minReadySeconds, this.d.now());
        if (!available && monotonic) {
          // Beyond upstream (kubernetes#67250): a pod stuck at an old revision never blocks its own
          // replacement; the rolling update takes it over.
          if (round.updatableNow(i)) return 'update';
          round.requeue.push(waitMs);
          return 'exit';
        }
        if (!available && spend(budget)) {
          round.requeue.push(waitMs);
          break;
        }
      }
      await this.fixIdentity(round, refreshed.pod);
    }
    await this.create(round, toCreate);
    return 'continue';
  }

  /**
   * The pod as created: in lifecycle state PreparingNormal while a preNormal hook is not all on it,
   * else Normal (upstream's processReplica).
   */
  private startState(set: StatefulSet, pod: Pod): Pod {
    const hook = set.spec?.lifecycle?.preNormal;
    const state = !hook || isPodAllHooked(hook, pod) ? 'Normal' : 'PreparingNormal';
    if (lifecycleState(pod) === state) return pod;
    const copy = structuredClone(pod);
    copy.metadata!.labels![LIFECYCLE_STATE_LABEL] = state;
    return copy;
  }

  /** Gives a pod its identity and its claims their owners when they are wrong (FailedUpdatePod on error). */
  private async fixIdentity(round: ScaleRound, pod: Pod): Promise<void> {
    try {
      await this.podControl.updatePod(round.updateSet, pod);
    } catch (err) {
      setCondition(
        round.status,
        trueCondition(
          'FailedUpdatePod',
          `StatefulPodControl failed to update Pod error: ${errText(err)}`,
          this.d.now(),
        ),
      );
      throw err;
    }
  }

  /** Creates pods in batches of 1, 2, 4 …, stopping after a batch with a failure (FailedCreatePod). */
  private async create(round: ScaleRound, pods: Pod[]): Promise<void> {
    const key = setKey(round.set);
    const { error } = await doItSlowly(pods.length, async (i) => {
      const name = pods[i]!.metadata?.name ?? '';
      this.d.scaleExpectations.expectCreation(key, name);
      try {
        await this.podControl.createPod(round.set, pods[i]!);
      } catch (err) {
        this.d.scaleExpectations.creationObserved(key, name);
        throw err;
      }
    });
    if (error !== undefined) {
      setCondition(
        round.status,
        trueCondition(
          'FailedCreatePod',
          `StatefulPodControl failed to create Pod error: ${errText(error)}`,
          this.d.now(),
        ),
      );
      throw error;
    }
  }

  /**
   * The condemned pass: deletes pods outside the range, highest ordinal first. OrderedReady waits for
   * a terminating pod and deletes one at a time once its predecessors are running and available (the
   * first unhealthy pod excepted); Parallel deletes them all, in batches of 1, 2, 4 ….
   */
  async condemned(round: ScaleRound, firstUnhealthy: Pod | undefined): Promise<ReplicaPass> {
    const { set, condemned } = round;
    const monotonic = set.spec?.podManagementPolicy !== 'Parallel';
    if (this.d.gates.enabled('StatefulSetAutoDeletePVC'))
      for (const pod of condemned)
        if (!(await this.podControl.claimsMatchRetention(round.updateSet, pod)))
          await this.podControl.fitClaimsToRetention(round.updateSet, pod);
    if (!monotonic) {
      const live = condemned.filter((p) => !isTerminating(p));
      const { error } = await doItSlowly(live.length, async (i) => {
        await this.steps.deletePod(set, live[i]!);
      });
      if (error !== undefined) throw error;
      return 'continue';
    }
    for (const pod of condemned) {
      if (isTerminating(pod)) return 'exit';
      if (!isRunningAndReady(pod) && pod !== firstUnhealthy) return 'exit';
      const { available, waitMs } = runningAndAvailable(pod, round.minReadySeconds, this.d.now());
      if (!available && pod !== firstUnhealthy) {
        round.requeue.push(waitMs);
        return 'exit';
      }
      if ((await this.steps.deletePod(set, pod)).modified) return 'exit';
    }
    return 'continue';
  }
}
