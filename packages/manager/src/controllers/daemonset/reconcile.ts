import type { DaemonSet, DaemonSetStatus } from '@kruise/api';
import { labelSelectorIsEmpty, labelSelectorMatches } from '@kruise/kube-compat';
import type { Logger } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { claimPods } from '../../workload/controller-ref.ts';
import { type PodControls, podControls } from '../../workload/pod-controls.ts';
import { isPodReady } from '../../workload/pod-state.ts';
import { syncPreDownload } from '../../workload/predownload.ts';
import { controllerRef } from '../../workload/revision/history.ts';
import { revisionStore } from '../../workload/revision/store.ts';
import { RequeueAfter } from '../cloneset/context.ts';
import { stableTarget } from './canary.ts';
import {
  DAEMONSET_API_VERSION,
  DAEMONSET_HASH_LABEL,
  type DaemonSetCaches,
  type DaemonSetDeps,
  dsKey,
  templateGeneration,
} from './context.ts';
import { managePlan } from './manage.ts';
import { isPaused, isPodUpdated, podsByNode } from './placement.ts';
import { preDownloadOwner, preDownloadPlan } from './predownload.ts';
import { cleanupHistory, constructHistory, type DaemonSetRevisions } from './revisions.ts';
import { inPlaceOptions, RollingUpdate, revisionHash } from './rolling-update.ts';
import { daemonSetCounts, storeStatus } from './status.ts';
import { PodSync } from './sync-nodes.ts';

/**
 * The Advanced DaemonSet reconcile (upstream's syncDaemonSet): claims its pods, resolves the
 * revision, creates and deletes pods node by node, refreshes in-place updates, rolls the update out
 * (unless paused or OnDelete), truncates history and writes the status. A create, delete or pod
 * write not yet seen in the cache holds the next round back until it is (or its expectation times out).
 */
export class DaemonSetReconciler {
  private readonly controls: PodControls;
  private readonly pods: PodSync;
  private readonly rolling: RollingUpdate;

  private readonly d: DaemonSetDeps;
  private readonly caches: DaemonSetCaches;

  constructor(d: DaemonSetDeps, caches: DaemonSetCaches) {
    this.d = d;
    this.caches = caches;
    this.controls = podControls(d.client, d.now);
    this.pods = new PodSync(d, this.controls);
    this.rolling = new RollingUpdate(d, this.controls, this.pods);
  }

  async reconcile(key: string, log: Logger): Promise<{ requeueAfterMs?: number }> {
    const ds = this.caches.daemonSet(key);
    if (!ds) {
      this.d.scaleExpectations.delete(key);
      return {};
    }
    if (ds.metadata?.deletionTimestamp) return {};
    const selector = ds.spec?.selector;
    if (selector && labelSelectorIsEmpty(selector)) {
      this.d.event(
        ds,
        'Warning',
        'SelectingAll',
        'This DaemonSet is selecting all pods. A non-empty selector is required.',
      );
      return {};
    }
    const nodes = this.caches.nodes();
    const store = revisionStore(this.d.client, ds.metadata?.namespace ?? '');
    const revisions = await constructHistory(store, ds, this.caches.ownedRevisions(ds.metadata?.uid ?? ''));
    const hash = revisionHash(revisions.current);
    const requeue = new RequeueAfter();
    let pods = await this.claim(ds);
    const status = (observed: boolean) => this.writeStatus(ds, nodes, pods, revisions, requeue, observed);
    const waiting = this.waiting(key, pods);
    if (waiting !== undefined) {
      requeue.push(waiting);
      await status(false);
      return this.result(requeue);
    }
    if (this.d.gates.enabled('PreDownloadImageForDaemonSetUpdate') && this.d.gates.enabled('KruiseDaemon'))
      await this.preDownload(ds, revisions, pods, log);
    const unplaced = (pod: Pod, reason: string) =>
      log.info({ pod: pod.metadata?.name, reason }, 'failed to get target node name of daemon pod');
    const byNode = podsByNode(pods, unplaced);
    const stable = stableTarget(ds, nodes, byNode, revisions.current, revisions.old);
    const plan = managePlan(this.d, ds, nodes, byNode, hash, requeue);
    await this.pods.sync(ds, plan.toDelete, plan.nodesNeeding, hash, stable);
    pods = await this.claim(ds);
    const after = this.waiting(key, pods);
    if (after !== undefined) {
      requeue.push(after);
      await status(false);
      return this.result(requeue);
    }
    for (const pod of pods) {
      const { delayMs } = await this.controls.inPlace.refresh(pod, inPlaceOptions(this.d));
      requeue.push(delayMs);
    }
    if (!isPaused(ds) && (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate')
      await this.rolling.run(ds, nodes, podsByNode(pods), revisions.current, revisions.old, requeue, stable);
    await cleanupHistory(store, ds, pods, revisions);
    await status(true);
    return this.result(requeue);
  }

  private result(requeue: RequeueAfter): { requeueAfterMs?: number } {
    return requeue.value === undefined ? {} : { requeueAfterMs: requeue.value };
  }

  /** How long to wait for creates, deletes or pod writes the cache has not shown yet; undefined when none. */
  private waiting(key: string, pods: Pod[]): number | undefined {
    const scale = this.d.scaleExpectations.check(key);
    if (!scale.satisfied) return scale.retryAfterMs;
    const rv = this.d.resourceVersionExpectations;
    for (const pod of pods) {
      rv.observe(pod);
      const wait = rv.check(pod);
      if (!wait.satisfied) return wait.retryAfterMs;
    }
    return undefined;
  }

  /** The pods the DaemonSet controls, after adopting orphans its selector matches and releasing those it no longer does. */
  private claim(ds: DaemonSet): Promise<Pod[]> {
    const uid = ds.metadata?.uid ?? '';
    const candidates = [
      ...this.caches.ownedPods(uid),
      ...this.caches.orphanPods(ds.metadata?.namespace ?? ''),
    ];
    return claimPods(
      this.d.client,
      {
        ref: controllerRef({
          apiVersion: DAEMONSET_API_VERSION,
          kind: 'DaemonSet',
          metadata: { name: ds.metadata?.name ?? '', uid },
        }),
        deleting: !!ds.metadata?.deletionTimestamp,
      },
      candidates,
      (pod) => labelSelectorMatches(ds.spec?.selector, pod.metadata?.labels),
      async () => {
        const fresh = await this.caches.fresh(ds);
        return !!fresh && fresh.metadata?.uid === uid && !fresh.metadata?.deletionTimestamp;
      },
    );
  }

  private async writeStatus(
    ds: DaemonSet,
    nodes: Node[],
    pods: Pod[],
    revisions: DaemonSetRevisions,
    requeue: RequeueAfter,
    observed: boolean,
  ): Promise<void> {
    const hash = revisionHash(revisions.current);
    const counts = daemonSetCounts(ds, nodes, podsByNode(pods), hash, this.d.now());
    const status: DaemonSetStatus = {
      ...counts,
      updateRevision: hash,
      ...(revisions.collisionCount ? { collisionCount: revisions.collisionCount } : {}),
    };
    await storeStatus(this.d.client, ds, status, observed);
    // look again once pods that are ready become available
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && counts.numberReady !== counts.numberAvailable) requeue.push(minReady * 1000);
  }

  /** Image pre-download for the next revision (gate PreDownloadImageForDaemonSetUpdate). */
  private async preDownload(
    ds: DaemonSet,
    revisions: DaemonSetRevisions,
    pods: Pod[],
    log: Logger,
  ): Promise<void> {
    const update = revisions.current;
    const hash = revisionHash(update);
    const generation = templateGeneration(ds);
    const done =
      (ds.status?.updatedNumberScheduled ?? 0) === (ds.status?.desiredNumberScheduled ?? 0) &&
      ds.status?.updateRevision === hash;
    // the revision most pods still run is the one the images are compared with
    const runs = (r: ControllerRevision) =>
      pods.filter((p) => p.metadata?.labels?.[DAEMONSET_HASH_LABEL] === revisionHash(r)).length;
    const current = done
      ? update
      : ([...revisions.old].sort((a, b) => runs(b) - runs(a) || b.revision - a.revision)[0] ?? update);
    const updatedReady = pods.filter((p) => isPodUpdated(p, hash, generation) && isPodReady(p)).length;
    const owner = preDownloadOwner(ds, update, updatedReady);
    await syncPreDownload(
      {
        client: this.d.client,
        event: (_o, type, reason, message) => this.d.event(ds, type, reason, message),
        ownedJobs: () => this.d.ownedJobs(ds),
        revisionLabelled: (r) => this.d.resourceVersionExpectations.expect(r as never),
        log,
      },
      owner,
      current,
      update,
      () => preDownloadPlan(ds, current, update, owner),
    );
  }

  /** Forgets a deleted DaemonSet's pending expectations. */
  forget(key: string): void {
    this.d.scaleExpectations.delete(key);
  }
}

export { dsKey };
