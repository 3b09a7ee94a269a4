import type { StatefulSet, StatefulSetStatus } from '@kruise/api';
import { kubeTime, labelSelectorMatches, labelSelectorString } from '@kruise/kube-compat';
import { isMemberOf, missingClaims } from '@kruise/kube-compat/statefulset-identity';
import { parentAndOrdinal } from '@kruise/kube-compat/statefulset-ordinals';
import type { Logger } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { claimPods } from '../../workload/controller-ref.ts';
import { type PodControls, podControls } from '../../workload/pod-controls.ts';
import { syncPreDownload } from '../../workload/predownload.ts';
import { revisionStore } from '../../workload/revision/store.ts';
import { sortByPriority } from '../../workload/update-sort.ts';
import { RequeueAfter } from '../cloneset/context.ts';
import { volumeClaimsStatus } from './claim-resize.ts';
import type { StatefulSetDeps } from './context.ts';
import { newStatefulSetPod, setRef } from './new-pods.ts';
import { ordinalRange } from './ordinal-range.ts';
import { StatefulPodControl } from './pod-control.ts';
import { isHealthy } from './pod-health.ts';
import { inPlaceOptions, PodSteps } from './pod-steps.ts';
import { preDownloadPlan } from './predownload.ts';
import { currentRevisionNeeded, podsToUpdate, sortPods } from './replicas.ts';
import {
  activeRevisions,
  applyRevision,
  podRevision,
  STATEFULSET_API_VERSION,
  truncateHistory,
} from './revisions.ts';
import { RollingUpdate } from './rolling-update.ts';
import { ScaleSteps } from './scale.ts';
import { countReplicas, removeCondition, setCondition, trueCondition, writeStatus } from './status.ts';

/** What a StatefulSet reconcile reads: the caches. */
export interface StatefulSetCaches {
  set(key: string): StatefulSet | undefined;
  /** Pods whose ownerReferences name this UID. */
  ownedPods(uid: string): Pod[];
  /** Pods of a namespace that no controller owns (adoption candidates). */
  orphanPods(namespace: string): Pod[];
  ownedRevisions(uid: string): ControllerRevision[];
  /** A fresh read of the set from the API (before adopting anything). */
  fresh(set: StatefulSet): Promise<StatefulSet | undefined>;
}

/** Condition of ours: pods that run without a claim a template added after they were created. */
export const MISSING_VOLUME_CLAIMS = 'PodVolumeClaimsMissing';

const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * The Advanced StatefulSet reconcile (upstream's StatefulSet control): claims its pods, resolves
 * revisions, creates, recreates and deletes pods by ordinal (OrderedReady or Parallel), rolls the
 * update out in place or by recreate, writes the status, and truncates history. A create or delete
 * not yet seen in the cache holds the next round back until it is (or its expectation times out).
 */
export class StatefulSetReconciler {
  private readonly d: StatefulSetDeps;
  private readonly caches: StatefulSetCaches;
  private readonly podControl: StatefulPodControl;
  private readonly controls: PodControls;
  private readonly steps: PodSteps;
  private readonly scale: ScaleSteps;
  private readonly rolling: RollingUpdate;

  constructor(deps: StatefulSetDeps, caches: StatefulSetCaches) {
    this.d = deps;
    this.caches = caches;
    this.podControl = new StatefulPodControl(deps);
    this.controls = podControls(deps.client, deps.now);
    this.steps = new PodSteps(deps, this.controls, this.podControl);
    this.scale = new ScaleSteps(deps, this.podControl, this.steps);
    this.rolling = new RollingUpdate(deps, this.steps);
  }

  async reconcile(key: string, log: Logger): Promise<{ requeueAfterMs?: number }> {
    const set = this.caches.set(key);
    if (!set) {
      this.d.scaleExpectations.delete(key);
      return {};
    }
    const selector = set.spec?.selector;
    if (
      !selector ||
      (!Object.keys(selector.matchLabels ?? {}).length && !selector.matchExpressions?.length)
    ) {
      log.error({ key }, 'invalid StatefulSet selector');
      return {};
    }
    const scale = this.d.scaleExpectations.check(key);
    if (!scale.satisfied) return { requeueAfterMs: scale.retryAfterMs };

    const pods = await this.claim(set);
    const rv = this.d.resourceVersionExpectations;
    for (const pod of pods) {
      rv.observe(pod);
      const wait = rv.check(pod);
      if (!wait.satisfied) return { requeueAfterMs: wait.retryAfterMs };
    }
    const store = revisionStore(this.d.client, set.metadata?.namespace ?? '');
    const history = this.caches.ownedRevisions(set.metadata?.uid ?? '');
    const { current, update, collisionCount } = await activeRevisions(store, set, history);
    const revisions = history.some((r) => r.metadata?.name === update.metadata?.name)
      ? history
      : [...history, update];

    const status: StatefulSetStatus = {
      observedGeneration: set.metadata?.generation,
      replicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      currentRevision: current.metadata?.name,
      updateRevision: update.metadata?.name,
      collisionCount,
      labelSelector: labelSelectorString(selector),
      ...(set.status?.conditions ? { conditions: set.status.conditions } : {}),
    };
    if (this.d.gates.enabled('PreDownloadImageForInPlaceUpdate') && this.d.gates.enabled('KruiseDaemon'))
      await this.preDownload(set, current, update);
    const requeue = new RequeueAfter();
    let error: unknown;
    let replicas: (Pod | undefined)[] = [];
    try {
      replicas = await this.sync(set, current, update, revisions, pods, status, requeue);
    } catch (err) {
      error = err;
    }
    if ((set.spec?.volumeClaimTemplates ?? []).length)
      status.volumeClaims = await volumeClaimsStatus(this.d, set, replicas);
    this.reportMissingClaims(set, pods, status);
    try {
      await writeStatus(this.d.client, set, status);
    } catch (err) {
      error ??= err;
    }
    await truncateHistory(store, set, pods, revisions, {
      current: current.metadata?.name ?? '',
      update: update.metadata?.name ?? '',
    }).catch((err) => log.error({ err: errText(err) }, 'failed to truncate history'));
    if (error !== undefined) throw error;
    const pending = this.d.scaleExpectations.check(key);
    if (!pending.satisfied) requeue.push(pending.retryAfterMs);
    return requeue.value === undefined ? {} : { requeueAfterMs: requeue.value };
  }

  /** Image pre-download for the update revision (gate PreDownloadImageForInPlaceUpdate). */
  private preDownload(
    set: StatefulSet,
    current: ControllerRevision,
    update: ControllerRevision,
  ): Promise<void> {
    return syncPreDownload(
      {
        client: this.d.client,
        event: (_owner, type, reason, message) => this.d.event(set, type, reason, message),
        ownedJobs: () => this.d.ownedJobs(set),
        revisionLabelled: (r) => this.d.resourceVersionExpectations.expect(r),
        log: this.d.log,
      },
      { ...set, apiVersion: STATEFULSET_API_VERSION, kind: 'StatefulSet' },
      current,
      update,
      () =>
        preDownloadPlan(
          set,
          current,
          update,
          this.controls.inPlace.canUpdateInPlace(current, update, inPlaceOptions(set, this.d)),
        ),
    );
  }

  /** Owned members that match the selector; orphans adopted, pods that left released. */
  private claim(set: StatefulSet): Promise<Pod[]> {
    const owned = this.caches.ownedPods(set.metadata?.uid ?? '');
    const orphans = this.caches.orphanPods(set.metadata?.namespace ?? '');
    return claimPods(
      this.d.client,
      { ref: setRef(set), deleting: set.metadata?.deletionTimestamp !== undefined },
      [...owned, ...orphans],
      (pod) => isMemberOf(set, pod) && labelSelectorMatches(set.spec?.selector, pod.metadata?.labels),
      async () => {
        const fresh = await this.caches.fresh(set);
        return fresh?.metadata?.uid === set.metadata?.uid && !fresh?.metadata?.deletionTimestamp;
      },
    );
  }

  /** One round of scale and update (upstream's updateStatefulSet); returns the replica slots it worked on. */
  private async sync(
    set: StatefulSet,
    current: ControllerRevision,
    update: ControllerRevision,
    revisions: ControllerRevision[],
    pods: Pod[],
    status: StatefulSetStatus,
    requeue: RequeueAfter,
  ): Promise<(Pod | undefined)[]> {
    const currentSet = applyRevision(set, current);
    const updateSet = applyRevision(set, update);
    const currentName = current.metadata?.name ?? '';
    const updateName = update.metadata?.name ?? '';
    const range = ordinalRange(set, this.d.gates);
    const { replicas, condemned } = sortPods(pods, range);
    const now = this.d.now();
    const podOptions = {
      podIndexLabel: this.d.gates.enabled('PodIndexLabel'),
      podReadyGate: this.d.gates.enabled('PodWebhook'),
      lifecycleState: 'PreparingNormal' as const,
      now: kubeTime(now),
    };
    for (let ord = range.start; ord < range.end; ord++) {
      if (range.reserved.has(ord) || replicas[ord - range.start]) continue;
      const atCurrent = currentRevisionNeeded(currentSet, updateName, ord, range.start, replicas);
      replicas[ord - range.start] = atCurrent
        ? newStatefulSetPod(currentSet, ord, currentName, podOptions)
        : newStatefulSetPod(updateSet, ord, updateName, podOptions);
    }
    const minReadySeconds = set.spec?.updateStrategy?.rollingUpdate?.minReadySeconds ?? 0;
    const revisionNames = { current: currentName, update: updateName };
    const recount = () =>
      countReplicas(status, [...replicas, ...condemned], minReadySeconds, revisionNames, this.d.now());
    recount();
    if (set.metadata?.deletionTimestamp) return replicas;

    const strategy = set.spec?.updateStrategy;
    const rollingOn =
      (strategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && !strategy?.rollingUpdate?.paused;
    const targets = podsToUpdate(set, updateName, replicas, (indexes, slots) => {
      const order = sortByPriority(
        indexes.map((i) => slots[i]!),
        strategy?.rollingUpdate?.unorderedUpdate?.priorityStrategy,
      );
      return order.map((p) => slots.indexOf(p));
    });
    const round = {
      set,
      updateSet,
      updateRevision: updateName,
      replicas,
      condemned,
      status,
      requeue,
      minReadySeconds,
      updatableNow: (i: number) =>
        rollingOn && podRevision(replicas[i]!) !== updateName && targets.includes(i),
    };
    const pass = await this.scale.replicas(round);
    if (pass === 'exit') {
      recount();
      return replicas;
    }
    if (pass === 'continue') {
      const firstUnhealthy = [...replicas, ...[...condemned].reverse()]
        .filter((p): p is Pod => p !== undefined && !isHealthy(p))
        .sort((a, b) => ordinal(a) - ordinal(b))[0];
      const condemnedPass = await this.scale.condemned(round, firstUnhealthy);
      recount();
      if (condemnedPass === 'exit') return replicas;
    } else recount();
    if (strategy?.type === 'OnDelete') return replicas;
    await this.rolling.run({
      set,
      current,
      update,
      revisions,
      pods,
      replicas,
      targets,
      status,
      requeue,
      minReadySeconds,
    });
    return replicas;
  }

  /**
   * Beyond upstream (#2343): a claim template added to a running set reaches the pods created from
   * then on; the pods that run without it are named in a condition instead of an update of their
   * volumes that the API server refuses for ever.
   */
  private reportMissingClaims(set: StatefulSet, pods: Pod[], status: StatefulSetStatus): void {
    const lacking = pods
      .filter((p) => !p.metadata?.deletionTimestamp && missingClaims(set, p).length)
      .map((p) => `${p.metadata?.name} (${missingClaims(set, p).join(', ')})`)
      .sort();
    if (!lacking.length) {
      removeCondition(status, MISSING_VOLUME_CLAIMS);
      return;
    }
    const message = `pods without the claims of volumeClaimTemplates added after they were created, until they are recreated: ${lacking.join(', ')}`;
    const existing = status.conditions?.find((c) => c.type === MISSING_VOLUME_CLAIMS);
    if (existing?.message === message) return;
    removeCondition(status, MISSING_VOLUME_CLAIMS);
    setCondition(
      status,
      trueCondition(MISSING_VOLUME_CLAIMS, message, this.d.now(), 'VolumeClaimTemplatesAdded'),
    );
  }
}

const ordinal = (pod: Pod) => parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
