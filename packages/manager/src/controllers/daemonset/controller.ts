import { type DaemonSet, type ImagePullJob, KruiseResources } from '@kruise/api';
import {
  Backoff,
  kubeletContainerHash,
  labelSelectorIsEmpty,
  labelSelectorMatches,
  nodeUpdateIgnorable,
} from '@kruise/kube-compat';
import {
  type ControllerBuilder,
  type Informer,
  type KubeObject,
  type Manager,
  type Request,
  Resources,
  ResourceVersionExpectations,
  requestKey,
  ScaleExpectations,
} from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { trimmedNodes, trimmedPods } from '../../informers.ts';
import { freshRead } from '../../workload/fresh-read.ts';
import {
  changed,
  controllerOf,
  ownerRequest,
  ownerUids,
  podExpectationEvents,
  requestOf,
  workloadChanged,
} from '../../workload/owner-events.ts';
import type { AddOptions } from '../add-options.ts';
import { selectorPicks } from './canary.ts';
import { placementOn } from './placement.ts';
import { DaemonSetReconciler } from './reconcile.ts';

/** The controller's name (metrics, logs, expectations). */
export const NAME = 'daemonset';
const OWNER_UID = 'ownerUid';
const ORPHANS = 'orphansByNamespace';
const NAMESPACE = 'namespace';
/** How often the failed-pod backoff forgets quiet nodes (upstream's BackoffGCInterval). */
const BACKOFF_GC_MS = 60_000;

/** The Advanced DaemonSet a controller reference names (group apps.kruise.io, kind DaemonSet). */
const daemonSetOf = ownerRequest('DaemonSet');

/**
 * Adds the Advanced DaemonSet controller (upstream's daemonset-controller): DaemonSets queue
 * themselves (not for their own status writes); their pods queue them and settle their create and
 * delete expectations; an orphan pod queues the DaemonSets that would adopt it; a Node queues the
 * DaemonSets whose placement there changes (it joins, its labels, taints or conditions change, or
 * it leaves) or whose rollingUpdate.selector starts or stops selecting it.
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const f = manager.informers;
  const daemonSets = f.informerFor<DaemonSet & KubeObject>({ resource: KruiseResources.DaemonSet });
  const pods = trimmedPods(manager) as unknown as Informer<KubeObject>;
  const nodes = trimmedNodes(manager) as unknown as Informer<KubeObject>;
  const revisions = f.informerFor<KubeObject>({ resource: Resources.ControllerRevision });
  const preDownload =
    flags.featureGates.enabled('PreDownloadImageForDaemonSetUpdate') &&
    flags.featureGates.enabled('KruiseDaemon');
  const jobs = preDownload
    ? f.informerFor<ImagePullJob & KubeObject>({ resource: KruiseResources.ImagePullJob })
    : undefined;
  for (const i of [pods, revisions, jobs].filter(Boolean) as Informer<KubeObject>[])
    i.addIndex(OWNER_UID, ownerUids);
  pods.addIndex(ORPHANS, (p) => (controllerOf(p) ? [] : [p.metadata?.namespace ?? '']));
  daemonSets.addIndex(NAMESPACE, (s) => [s.metadata?.namespace ?? '']);
  const expectations = manager.expectationsOptions(NAME, flags.expectationTimeoutMs);
  const scale = new ScaleExpectations(expectations);
  const rv = new ResourceVersionExpectations(expectations);
  const recorder = manager.eventRecorder('daemonset-controller');
  const backoff = new Backoff(1000, 15 * 60_000);
  const gc = setInterval(() => backoff.gc(), BACKOFF_GC_MS);
  gc.unref();
  const reconciler = new DaemonSetReconciler(
    {
      client: manager.client,
      event: (ds, type, reason, message) => recorder.event(ds as KubeObject, type, reason, message),
      ownedJobs: (ds) => (jobs?.byIndex(OWNER_UID, ds.metadata?.uid ?? '') ?? []) as ImagePullJob[],
      scaleExpectations: scale,
      resourceVersionExpectations: rv,
      gates: flags.featureGates,
      kubeletHash: kubeletContainerHash,
      failedPodsBackoff: backoff,
      assignPodsByScheduler: flags.assignPodsByScheduler,
      now: Date.now,
      log: manager.log.child({ controller: NAME }),
    },
    {
      daemonSet: (key) => daemonSets.get(key),
      nodes: () => nodes.list() as unknown as Node[],
      node: (name) => nodes.get(name) as unknown as Node | undefined,
      ownedPods: (uid) => pods.byIndex(OWNER_UID, uid) as unknown as Pod[],
      orphanPods: (namespace) => pods.byIndex(ORPHANS, namespace) as unknown as Pod[],
      ownedRevisions: (uid) => revisions.byIndex(OWNER_UID, uid) as unknown as ControllerRevision[],
      fresh: freshRead<DaemonSet>(manager.client, KruiseResources.DaemonSet),
    },
  );
  const builder = manager.newController({
    name: NAME,
    workers: flags.daemonSetWorkers,
    reconcile: (ctx, req) => {
      tuning.onReconcile?.(NAME, requestKey(req));
      return reconciler.reconcile(requestKey(req), ctx.log);
    },
  });
  const all = () => daemonSets.list() as DaemonSet[];
  /** The DaemonSets an orphan pod would join: same namespace, a non-empty selector that matches. */
  const adopters = (pod: KubeObject): Request[] =>
    (daemonSets.byIndex(NAMESPACE, pod.metadata?.namespace ?? '') as DaemonSet[])
      .filter((ds) => {
        const s = ds.spec?.selector;
        return !labelSelectorIsEmpty(s) && labelSelectorMatches(s, pod.metadata?.labels);
      })
      .map((ds) => requestOf(ds as KubeObject));
  const events = podExpectationEvents({
    ownerOf: daemonSetOf,
    scale,
    rv,
    queue: builder.controller.queue,
    deletionsByCount: true,
  });
  const onNodes = (select: (ds: DaemonSet) => boolean) =>
    all()
      .filter(select)
      .map((ds) => requestOf(ds as KubeObject));
  return builder
    .watches(daemonSets, {
      add: requestOf,
      update: (o, s) => (workloadChanged(o, s) ? requestOf(s) : undefined),
      delete: requestOf,
    })
    .watches(pods, {
      add: (o) => (!o.metadata?.deletionTimestamp && !controllerOf(o) ? adopters(o) : events.created(o)),
      update: (o, p) => {
        if (o.metadata?.resourceVersion === p.metadata?.resourceVersion) return undefined;
        if (p.metadata?.deletionTimestamp) return events.deleting(o, p);
        const ref = controllerOf(p);
        if (!ref)
          return changed(o.metadata?.labels, p.metadata?.labels) || controllerOf(o) ? adopters(p) : undefined;
        const previous = changed(controllerOf(o), ref) ? daemonSetOf(o) : undefined;
        return [daemonSetOf(p, ref), previous].filter((r): r is Request => r !== undefined);
      },
      delete: events.deleted,
    })
    .watches(nodes, {
      add: (n) => onNodes((ds) => placementOn(n as Node, ds).shouldRun),
      update: (o, n) => {
        if (nodeUpdateIgnorable(o as never, n as never)) return undefined;
        return onNodes((ds) => {
          const before = placementOn(o as Node, ds);
          const now = placementOn(n as Node, ds);
          return (
            before.shouldRun !== now.shouldRun ||
            before.shouldContinueRunning !== now.shouldContinueRunning ||
            selectorPicks(ds, (o as Node).metadata?.labels) !==
              selectorPicks(ds, (n as Node).metadata?.labels)
          );
        });
      },
      // (upstream waits for a resync) a node that leaves changes the desired count at once
      delete: () => onNodes(() => true),
    });
}
