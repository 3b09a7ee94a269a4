import { type ImagePullJob, KruiseResources, type StatefulSet } from '@kruise/api';
import { kubeletContainerHash, labelSelectorMatches } from '@kruise/kube-compat';
import { isMemberOf } from '@kruise/kube-compat/statefulset-identity';
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
  withoutManagedFields,
} from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { trimmedPods } from '../../informers.ts';
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
import { pubUpdateGuard } from '../../workload/pub/update-guard.ts';
import type { AddOptions } from '../add-options.ts';
import { PVC_OWNED_BY_ASTS_ANNOTATION } from './claim-resize.ts';
import { StatefulSetReconciler } from './reconcile.ts';

/** The controller's name (metrics, logs, expectations). */
export const NAME = 'statefulset';
const OWNER_UID = 'ownerUid';
const ORPHANS = 'orphansByNamespace';
const NAMESPACE = 'namespace';

/** The Advanced StatefulSet a controller reference names (group apps.kruise.io, kind StatefulSet). */
const setOf = ownerRequest('StatefulSet');

/**
 * Adds the Advanced StatefulSet controller (upstream's statefulset-controller): sets queue themselves
 * (not for their own status writes); their pods queue them and settle their create and delete
 * expectations; a pod no controller owns queues the sets it would join (adoption — upstream waits for
 * the set's next event); a claim the controller resized queues its set.
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const f = manager.informers;
  const sets = f.informerFor<StatefulSet & KubeObject>({ resource: KruiseResources.StatefulSet });
  const pods = trimmedPods(manager) as unknown as Informer<KubeObject>;
  const revisions = f.informerFor<KubeObject>({ resource: Resources.ControllerRevision });
  const claims = f.informerFor<KubeObject>({
    resource: Resources.PersistentVolumeClaim,
    transform: withoutManagedFields,
  });
  // storage classes are read only to expand claims (gate StatefulSetAutoResizePVCGate)
  const classes = flags.featureGates.enabled('StatefulSetAutoResizePVCGate')
    ? f.informerFor<KubeObject>({ resource: Resources.StorageClass })
    : undefined;
  const jobs = f.informerFor<ImagePullJob & KubeObject>({ resource: KruiseResources.ImagePullJob });
  for (const i of [pods, revisions, jobs] as Informer<KubeObject>[]) i.addIndex(OWNER_UID, ownerUids);
  pods.addIndex(ORPHANS, (p) => (controllerOf(p) ? [] : [p.metadata?.namespace ?? '']));
  sets.addIndex(NAMESPACE, (s) => [s.metadata?.namespace ?? '']);
  const expectations = manager.expectationsOptions(NAME, flags.expectationTimeoutMs);
  const scale = new ScaleExpectations(expectations);
  const rv = new ResourceVersionExpectations(expectations);
  const recorder = manager.eventRecorder('statefulset-controller');
  const reconciler = new StatefulSetReconciler(
    {
      client: manager.client,
      event: (set, type, reason, message) => recorder.event(set as KubeObject, type, reason, message),
      claim: (namespace, name) =>
        claims.get(`${namespace}/${name}`) as unknown as PersistentVolumeClaim | undefined,
      storageClass: (name) => classes?.get(name) as unknown as StorageClass | undefined,
      ownedJobs: (set) => jobs.byIndex(OWNER_UID, set.metadata?.uid ?? ''),
      scaleExpectations: scale,
      resourceVersionExpectations: rv,
      gates: flags.featureGates,
      kubeletHash: kubeletContainerHash,
      pubUpdateGuard: pubUpdateGuard(manager, flags.featureGates),
      now: Date.now,
      log: manager.log.child({ controller: NAME }),
    },
    {
      set: (key) => sets.get(key),
      ownedPods: (uid) => pods.byIndex(OWNER_UID, uid) as unknown as Pod[],
      orphanPods: (namespace) => pods.byIndex(ORPHANS, namespace) as unknown as Pod[],
      ownedRevisions: (uid) => revisions.byIndex(OWNER_UID, uid) as unknown as ControllerRevision[],
      fresh: freshRead<StatefulSet>(manager.client, KruiseResources.StatefulSet),
    },
  );
  const builder = manager.newController({
    name: NAME,
    workers: flags.statefulSetWorkers,
    reconcile: (ctx, req) => {
      tuning.onReconcile?.(NAME, requestKey(req));
      return reconciler.reconcile(requestKey(req), ctx.log);
    },
  });
  /** The sets an orphan pod would join: same namespace, selector matches, name `<set>-<n>`. */
  const adopters = (pod: KubeObject): Request[] =>
    (sets.byIndex(NAMESPACE, pod.metadata?.namespace ?? '') as StatefulSet[])
      .filter(
        (s) => isMemberOf(s, pod as Pod) && labelSelectorMatches(s.spec?.selector, pod.metadata?.labels),
      )
      .map((s) => requestOf(s as KubeObject));
  const events = podExpectationEvents({ ownerOf: setOf, scale, rv, queue: builder.controller.queue });
  /** A new pod: as for every workload, but an orphan queues the sets that would adopt it. */
  const created = (o: KubeObject): Request | Request[] | undefined =>
    !o.metadata?.deletionTimestamp && !controllerOf(o) ? adopters(o) : events.created(o);
  return builder
    .watches(sets, {
      add: requestOf,
      update: (o, s) => (workloadChanged(o, s) ? requestOf(s) : undefined),
      delete: requestOf,
    })
    .watches(pods, {
      add: created,
      update: (o, p) => {
        if (o.metadata?.resourceVersion === p.metadata?.resourceVersion) return undefined;
        if (p.metadata?.deletionTimestamp) return events.deleting(o, p);
        const ref = controllerOf(p);
        if (!ref) return adopters(p);
        const previous = changed(controllerOf(o), ref) ? setOf(o) : undefined;
        return [setOf(p, ref), previous].filter((r): r is Request => r !== undefined);
      },
      delete: events.deleted,
    })
    .watches(claims, {
      update: (_o, c) => {
        const owner = c.metadata?.annotations?.[PVC_OWNED_BY_ASTS_ANNOTATION];
        return owner ? { namespace: c.metadata?.namespace ?? '', name: owner } : undefined;
      },
    });
}
