import { type CloneSet, type ImagePullJob, KruiseResources } from '@kruise/api';
import { kubeletContainerHash, labelSelectorString } from '@kruise/kube-compat';
import {
  type ControllerBuilder,
  type Informer,
  type KubeClient,
  type KubeObject,
  type Manager,
  type Request,
  Resources,
  ResourceVersionExpectations,
  requestKey,
  ScaleExpectations,
} from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { trimmedNodes, trimmedPods } from '../../informers.ts';
import {
  changed,
  controllerOf,
  ownerRequest,
  ownerUids,
  podExpectationEvents,
  requestOf,
  workloadChanged,
} from '../../workload/owner-events.ts';
import { pubUpdateGuard } from '../../workload/pub/update-guard.ts';
import type { AddOptions } from '../add-options.ts';
import { EVENT_HANDLER_OPTIMIZATION_GATE, ignorePodUpdateEvent } from './pod-event-filter.ts';
import { CloneSetReconciler } from './reconcile.ts';
import { inPlaceOptions } from './update.ts';

/** The controller's name (metrics, logs, expectations). */
export const NAME = 'cloneset';
const OWNER_UID = 'ownerUid';

/** The CloneSet a controller reference names (group apps.kruise.io, kind CloneSet). */
const cloneSetOf = ownerRequest('CloneSet');

/**
 * Adds the CloneSet controller (upstream's cloneset-controller): CloneSets queue themselves (not
 * for their own status writes: the status is derived from the pods); pods queue their
 * controlling CloneSet and observe its scale expectations (upstream's pod event handler:
 * a pod being deleted counts as deleted, a pod moving owner queues both, pods seen at start-up
 * queue their CloneSet with a 3 s → 30 s backoff; with the CloneSetEventHandlerOptimization gate,
 * pod updates that cannot change the reconcile's outcome are not queued).
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const f = manager.informers;
  const cloneSets = f.informerFor<CloneSet & KubeObject>({ resource: KruiseResources.CloneSet });
  // pods of Kruise workloads are cached whole (but for managedFields) by the shared trim
  const pods = trimmedPods(manager) as unknown as Informer<KubeObject>;
  const revisions = f.informerFor<KubeObject>({ resource: Resources.ControllerRevision });
  const jobs = f.informerFor<ImagePullJob & KubeObject>({ resource: KruiseResources.ImagePullJob });
  const nodes = trimmedNodes(manager);
  for (const i of [pods, revisions, jobs] as Informer<KubeObject>[]) i.addIndex(OWNER_UID, ownerUids);
  const expectations = manager.expectationsOptions(NAME, flags.expectationTimeoutMs);
  const scale = new ScaleExpectations(expectations);
  const rv = new ResourceVersionExpectations(expectations);
  const recorder = manager.eventRecorder('cloneset-controller');
  const reconciler = new CloneSetReconciler(
    {
      client: manager.client,
      event: (cs, type, reason, message) => recorder.event(cs as KubeObject, type, reason, message),
      scaleExpectations: scale,
      resourceVersionExpectations: rv,
      gates: flags.featureGates,
      kubeletHash: kubeletContainerHash,
      nodeLabels: (name) => nodes.get(name)?.metadata?.labels,
      scalingExcludePreparingDelete: flags.cloneSetScalingExcludePreparingDelete,
      pubUpdateGuard: pubUpdateGuard(manager, flags.featureGates),
      now: Date.now,
      random: tuning.random ?? Math.random,
      log: manager.log.child({ controller: NAME }),
    },
    {
      cloneSet: (key) => cloneSets.get(key),
      ownedPods: (uid) => pods.byIndex(OWNER_UID, uid) as unknown as Pod[],
      ownedClaims: (cs) => ownedClaims(manager.client, cs),
      ownedRevisions: (uid) => revisions.byIndex(OWNER_UID, uid) as unknown as ControllerRevision[],
      ownedJobs: (cs) => jobs.byIndex(OWNER_UID, cs.metadata?.uid ?? ''),
    },
  );
  const builder = manager.newController({
    name: NAME,
    workers: flags.cloneSetWorkers,
    reconcile: (ctx, req) => {
      tuning.onReconcile?.(NAME, requestKey(req));
      return reconciler.reconcile(requestKey(req), ctx.log);
    },
  });
  const optimized = flags.featureGates.enabled(EVENT_HANDLER_OPTIMIZATION_GATE);
  const gateDeps = { gates: flags.featureGates, kubeletHash: kubeletContainerHash };
  const events = podExpectationEvents({ ownerOf: cloneSetOf, scale, rv, queue: builder.controller.queue });
  return builder
    .watches(cloneSets, {
      add: requestOf,
      update: (o, cs) => (workloadChanged(o, cs) ? requestOf(cs) : undefined),
      delete: requestOf,
    })
    .watches(pods, {
      add: events.created,
      update: (o, p) => {
        if (o.metadata?.resourceVersion === p.metadata?.resourceVersion) return undefined;
        if (p.metadata?.deletionTimestamp) return events.deleting(o, p);
        const oldRef = controllerOf(o);
        const ref = controllerOf(p);
        const refChanged = changed(oldRef, ref);
        const previous = refChanged && oldRef ? cloneSetOf(o, oldRef) : undefined;
        const req = cloneSetOf(p, ref);
        if (req && optimized && !refChanged && !changed(o.metadata?.labels, p.metadata?.labels)) {
          const cs = cloneSets.get(requestKey(req));
          if (cs && ignorePodUpdateEvent(cs, o as Pod, p as Pod, inPlaceOptions(cs, gateDeps)))
            return previous;
        }
        return [req, previous].filter((r): r is Request => r !== undefined);
      },
      delete: events.deleted,
    });
}

/**
 * The CloneSet's PVCs not being deleted, read live (labelled with its selector's matchLabels,
 * owned by it): only CloneSets with volumeClaimTemplates have any, so PVCs are neither cached
 * nor watched, and claims need no scale expectations.
 */
async function ownedClaims(client: KubeClient, cs: CloneSet): Promise<PersistentVolumeClaim[]> {
  if (!cs.spec?.volumeClaimTemplates?.length) return [];
  const list = await client.list(Resources.PersistentVolumeClaim, {
    namespace: cs.metadata?.namespace,
    labelSelector: labelSelectorString({ matchLabels: cs.spec.selector.matchLabels ?? {} }),
  });
  return (list.items as unknown as PersistentVolumeClaim[]).filter(
    (c) =>
      !c.metadata?.deletionTimestamp && c.metadata?.ownerReferences?.some((r) => r.uid === cs.metadata?.uid),
  );
}
