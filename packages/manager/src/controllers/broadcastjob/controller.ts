import { type BroadcastJob, KruiseResources } from '@kruise/api';
import { nodeUpdateIgnorable } from '@kruise/kube-compat';
import {
  type ControllerBuilder,
  type Informer,
  type KubeObject,
  type Manager,
  type Request,
  requestKey,
  ScaleExpectations,
} from '@kruise/runtime';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { trimmedNodes, trimmedPods } from '../../informers.ts';
import {
  changed,
  controllerOf,
  ownerRequest,
  ownerUids,
  requestOf,
  workloadChanged,
} from '../../workload/owner-events.ts';
import type { AddOptions } from '../add-options.ts';
import { jobNodeFit } from './placement.ts';
import { assignedNode } from './pods.ts';
import { BroadcastJobReconciler } from './reconcile.ts';
import { isJobFinished } from './status.ts';

/** The controller's name (metrics, logs, expectations). */
export const NAME = 'broadcastjob';
const OWNER_UID = 'ownerUid';

/** The BroadcastJob a controller reference names (group apps.kruise.io, kind BroadcastJob). */
const jobOf = ownerRequest('BroadcastJob');

/**
 * Adds the BroadcastJob controller (upstream's broadcastjob-controller): jobs queue themselves (not
 * for their own status writes); their pods queue them and settle the creations and deletions it
 * expects per node; a node added, or changed so that a job's pod fits it or no longer does (a
 * taint removed, labels changed, cordoned — #1199), queues the unfinished jobs it concerns.
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const f = manager.informers;
  const jobs = f.informerFor<BroadcastJob & KubeObject>({ resource: KruiseResources.BroadcastJob });
  const pods = trimmedPods(manager) as unknown as Informer<KubeObject>;
  const nodes = trimmedNodes(manager) as unknown as Informer<KubeObject>;
  pods.addIndex(OWNER_UID, ownerUids);
  const scale = new ScaleExpectations(manager.expectationsOptions(NAME, flags.expectationTimeoutMs));
  const recorder = manager.eventRecorder('broadcastjob-controller');
  const reconciler = new BroadcastJobReconciler({
    client: manager.client,
    job: (key) => jobs.get(key),
    ownedPods: (uid) => pods.byIndex(OWNER_UID, uid) as unknown as Pod[],
    nodes: () => nodes.list() as unknown as Node[],
    scale,
    event: (job, type, reason, message) => recorder.event(job as KubeObject, type, reason, message),
    now: tuning.now ?? Date.now,
    pinByAffinity: flags.assignBroadcastJobPodsByScheduler,
  });
  const builder = manager.newController({
    name: NAME,
    workers: flags.broadcastJobWorkers,
    reconcile: (ctx, req) => {
      tuning.onReconcile?.(NAME, requestKey(req));
      return reconciler.reconcile(requestKey(req), ctx.log);
    },
  });
  /** A pod of a job gone (or being deleted): the deletion on its node observed, its job queued. */
  const podGone = (p: KubeObject): Request | undefined => {
    const req = jobOf(p);
    if (req) scale.deletionObserved(requestKey(req), assignedNode(p as Pod));
    return req;
  };
  /** The unfinished jobs whose pod `fits` says fits the node. */
  const jobsFor = (fits: (job: BroadcastJob) => boolean): Request[] =>
    jobs
      .list()
      .filter((j) => !isJobFinished(j) && fits(j))
      .map(requestOf);
  const fitsNode = (job: BroadcastJob, node: KubeObject) => jobNodeFit(job, node as Node).length === 0;
  const some = (...reqs: (Request | Request[] | undefined)[]): Request[] =>
    reqs.flat().filter((r): r is Request => r !== undefined);
  return builder
    .watches(jobs, {
      add: requestOf,
      update: (o, j) => (workloadChanged(o, j) ? requestOf(j) : undefined),
      delete: requestOf,
    })
    .watches(pods, {
      add: (p) => {
        if (p.metadata?.deletionTimestamp) return podGone(p);
        const req = jobOf(p);
        if (req) scale.creationObserved(requestKey(req), assignedNode(p as Pod));
        return req;
      },
      update: (o, p) => {
        if (o.metadata?.resourceVersion === p.metadata?.resourceVersion) return undefined;
        // a pod being deleted counts as deleted (its node's kubelet may never finish it)
        const gone = p.metadata?.deletionTimestamp && !o.metadata?.deletionTimestamp ? podGone(p) : undefined;
        const previous = changed(controllerOf(o), controllerOf(p)) ? jobOf(o) : undefined;
        return some(jobOf(p), gone, previous);
      },
      delete: (p) => some(podGone(p)),
    })
    .watches(nodes, {
      add: (n) => jobsFor((j) => fitsNode(j, n)),
      update: (o, n) => (nodeUpdateIgnorable(o, n) ? [] : jobsFor((j) => fitsNode(j, o) !== fitsNode(j, n))),
      delete: (n) => jobsFor((j) => fitsNode(j, n)),
    });
}
