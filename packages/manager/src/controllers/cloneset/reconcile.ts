import { type CloneSet, type CloneSetStatus, type ImagePullJob, KruiseResources } from '@kruise/api';
import { kubeTime, labelSelectorMatches, labelSelectorString } from '@kruise/kube-compat';
import { isNotFound, type KubeObject, type Logger, Resources } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { type PodControls, podControls } from '../../workload/pod-controls.ts';
import { isPodActive } from '../../workload/pod-state.ts';
import { revisionStore } from '../../workload/revision/store.ts';
import { type CloneSetDeps, RequeueAfter } from './context.ts';
import { syncPreDownload } from './predownload-sync.ts';
import { cleanupPVCs } from './pvcs.ts';
import { activeRevisions, applyRevision, truncateHistory } from './revisions.ts';
import { message, ScaleControl } from './scale.ts';
import { setCondition } from './status.ts';
import { updateCloneSetStatus } from './status-writer.ts';
import { UpdateControl } from './update.ts';

/** What a CloneSet reconcile reads: the caches, by owner. */
export interface CloneSetCaches {
  cloneSet(key: string): CloneSet | undefined;
  /** Pods whose ownerReferences name this CloneSet UID. */
  ownedPods(uid: string): Pod[];
  /** The CloneSet's PVCs not being deleted. */
  ownedClaims(cs: CloneSet): Promise<PersistentVolumeClaim[]>;
  ownedRevisions(uid: string): ControllerRevision[];
  ownedJobs(cs: CloneSet): ImagePullJob[];
}

/** The result of one reconcile. */
export interface ReconcileOutcome {
  requeueAfterMs?: number;
}

/**
 * The CloneSet reconcile (upstream's doReconcile): expectations, owned pods and PVCs, revisions,
 * image pre-download, scale or update, status, podsToDelete and history truncation; asks to be
 * requeued for grace periods, the progress deadline and minReadySeconds. While an expectation
 * is pending it requeues itself for when it times out; the library then drops it (logged and
 * counted), so a lost watch event never stalls a CloneSet (upstream #1765/#1829 stalled).
 */
export class CloneSetReconciler {
  private readonly d: CloneSetDeps;
  private readonly caches: CloneSetCaches;
  private readonly controls: PodControls;
  private readonly scaleControl: ScaleControl;
  private readonly updateControl: UpdateControl;

  constructor(deps: CloneSetDeps, caches: CloneSetCaches) {
    this.d = deps;
    this.caches = caches;
    this.controls = podControls(deps.client, deps.now);
    this.scaleControl = new ScaleControl(deps, this.controls);
    this.updateControl = new UpdateControl(deps, this.controls);
  }

  async reconcile(key: string, log: Logger): Promise<ReconcileOutcome> {
    const cs = this.caches.cloneSet(key);
    if (!cs) {
      this.d.scaleExpectations.delete(key);
      return {};
    }
    const selector = cs.spec?.selector;
    if (
      !selector ||
      (!Object.keys(selector.matchLabels ?? {}).length && !selector.matchExpressions?.length)
    ) {
      log.error({ key }, 'invalid CloneSet selector');
      return {};
    }
    const scale = this.d.scaleExpectations.check(key);
    if (!scale.satisfied) return { requeueAfterMs: scale.retryAfterMs };

    const uid = cs.metadata?.uid ?? '';
    const owned = this.caches.ownedPods(uid);
    let active = owned.filter(isPodActive);
    const inactive = owned.filter((p) => !isPodActive(p));
    let pvcs = await this.caches.ownedClaims(cs);
    if (cs.spec?.scaleStrategy?.disablePVCReuse) pvcs = await cleanupPVCs(this.d, cs, active, inactive, pvcs);
    active = await this.releaseUnselected(cs, active);

    const store = revisionStore(this.d.client, cs.metadata?.namespace ?? '');
    const history = this.caches.ownedRevisions(uid);
    const { current, update, collisionCount } = await activeRevisions(store, cs, history);
    const rv = this.d.resourceVersionExpectations;
    rv.observe(update);
    const revisionWait = rv.check(update);
    if (!revisionWait.satisfied) return { requeueAfterMs: revisionWait.retryAfterMs };
    for (const pod of active) {
      rv.observe(pod);
      const wait = rv.check(pod);
      if (!wait.satisfied) return { requeueAfterMs: wait.retryAfterMs };
    }

    const status: CloneSetStatus = {
      observedGeneration: cs.metadata?.generation,
      replicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      updatedReplicas: 0,
      updatedReadyReplicas: 0,
      currentRevision: current.metadata?.name,
      updateRevision: update.metadata?.name,
      collisionCount,
      labelSelector: labelSelectorString(selector),
      ...(cs.status?.conditions ? { conditions: cs.status.conditions } : {}),
    };
    if (this.d.gates.enabled('PreDownloadImageForInPlaceUpdate') && this.d.gates.enabled('KruiseDaemon'))
      await syncPreDownload(
        { ...this.d, ownedJobs: this.caches.ownedJobs },
        this.controls,
        cs,
        current,
        update,
      );

    const requeue = new RequeueAfter();
    const syncError = await this.sync(cs, status, current, update, history, active, pvcs, requeue);
    requeue.push(await updateCloneSetStatus(this.d.client, cs, status, active, this.d.now()));
    await this.truncatePodsToDelete(cs, active).catch((err) =>
      log.error({ err: message(err) }, 'failed to truncate podsToDelete'),
    );
    await truncateHistory(store, cs, active, [...history, update], {
      current: current.metadata?.name ?? '',
      update: update.metadata?.name ?? '',
    }).catch((err) => log.error({ err: message(err) }, 'failed to truncate history'));
    if (syncError !== undefined) throw syncError;
    // what this round created or deleted may never show up in the cache (a watch event lost to a
    // relist): look again when that expectation times out, so the CloneSet cannot stall
    const pending = this.d.scaleExpectations.check(key);
    if (!pending.satisfied) requeue.push(pending.retryAfterMs);
    const minReady = cs.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status.availableReplicas !== status.readyReplicas) requeue.push(minReady * 1000);
    return requeue.value === undefined ? {} : { requeueAfterMs: requeue.value };
  }

  /** Scale, and when it changed nothing, update; failures become FailedScale/FailedUpdate conditions. */
  private async sync(
    cs: CloneSet,
    status: CloneSetStatus,
    current: ControllerRevision,
    update: ControllerRevision,
    history: ControllerRevision[],
    pods: Pod[],
    pvcs: PersistentVolumeClaim[],
    requeue: RequeueAfter,
  ): Promise<unknown> {
    if (cs.metadata?.deletionTimestamp) return undefined;
    const currentSide = { cs: applyRevision(cs, current), revision: current.metadata?.name ?? '' };
    const updateSide = { cs: applyRevision(cs, update), revision: update.metadata?.name ?? '' };
    const failed = (type: 'FailedScale' | 'FailedUpdate', err: unknown) =>
      setCondition(status, {
        type,
        status: 'True',
        lastTransitionTime: kubeTime(this.d.now()),
        message: message(err),
      });
    let error: unknown;
    try {
      if (await this.scaleControl.scale(currentSide, updateSide, pods, pvcs)) return undefined;
    } catch (err) {
      failed('FailedScale', err);
      error = err;
    }
    try {
      const revisions = history.some((r) => r.metadata?.name === update.metadata?.name)
        ? history
        : [...history, update];
      await this.updateControl.update(updateSide.cs, current, update, revisions, pods, requeue);
    } catch (err) {
      failed('FailedUpdate', err);
      error ??= err;
    }
    return error;
  }

  /** Owned pods that no longer match the selector lose their owner reference (they are never adopted back). */
  private async releaseUnselected(cs: CloneSet, pods: Pod[]): Promise<Pod[]> {
    const kept: Pod[] = [];
    for (const pod of pods) {
      if (labelSelectorMatches(cs.spec?.selector, pod.metadata?.labels)) {
        kept.push(pod);
        continue;
      }
      const refs = (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== cs.metadata?.uid);
      try {
        await this.d.client.mergePatch(Resources.Pod, pod.metadata?.namespace, pod.metadata?.name ?? '', {
          metadata: { ownerReferences: refs, uid: pod.metadata?.uid },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return kept;
  }

  /** Drops names from podsToDelete that are no longer active pods of the CloneSet. */
  private async truncatePodsToDelete(cs: CloneSet, pods: Pod[]): Promise<void> {
    const names = cs.spec?.scaleStrategy?.podsToDelete ?? [];
    if (!names.length) return;
    const existing = new Set(pods.map((p) => p.metadata?.name));
    const kept = names.filter((n) => existing.has(n));
    if (kept.length === names.length) return;
    await this.d.client.update(KruiseResources.CloneSet, {
      ...(cs as KubeObject),
      spec: {
        ...cs.spec,
        scaleStrategy: { ...cs.spec?.scaleStrategy, podsToDelete: kept.length ? kept : undefined },
      },
    } as KubeObject);
  }
}
