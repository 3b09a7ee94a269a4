import type { CloneSet, ImagePullJob } from '@kruise/api';
import {
  Controller,
  type Informer,
  ItemExponentialRateLimiter,
  type KubeObject,
  type Logger,
  type Metrics,
  objectKey,
} from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { CloneSetDeps } from './context.ts';
import { CloneSetReconciler } from './reconcile.ts';

/** The caches the CloneSet controller watches (shared informers). */
export interface CloneSetInformers {
  cloneSets: Informer<CloneSet & KubeObject>;
  pods: Informer<KubeObject>;
  claims: Informer<KubeObject>;
  revisions: Informer<KubeObject>;
  jobs: Informer<ImagePullJob & KubeObject>;
}

/** Options of the CloneSet controller. */
export interface CloneSetControllerOptions {
  workers: number;
  logger: Logger;
  metrics?: Metrics;
}

const OWNER_UID = 'ownerUid';
const ownerUids = (o: KubeObject) => (o.metadata?.ownerReferences ?? []).map((r: OwnerReference) => r.uid);

/** The CloneSet a controller reference names (group apps.kruise.io, kind CloneSet), as a key. */
function cloneSetOf(namespace: string | undefined, ref: OwnerReference | undefined): string | undefined {
  if (!ref || ref.kind !== 'CloneSet' || ref.apiVersion.split('/')[0] !== 'apps.kruise.io') return undefined;
  return `${namespace}/${ref.name}`;
}

const controllerOf = (o: KubeObject): OwnerReference | undefined =>
  (o.metadata?.ownerReferences ?? []).find((r: OwnerReference) => r.controller);

/**
 * The CloneSet controller: the reconciler over a work queue, keyed by CloneSet; pods and PVCs map
 * to their controlling CloneSet and observe scale expectations (upstream's podEventHandler and
 * pvcEventHandler); CloneSet changes other than its own status writes enqueue it.
 */
export class CloneSetController {
  readonly controller: Controller;
  readonly reconciler: CloneSetReconciler;
  /** Reconciles run per CloneSet key (for tests and benches counting reconciles). */
  readonly reconciles = new Map<string, number>();
  private readonly initial = new ItemExponentialRateLimiter<string>(3000, 30_000);

  constructor(deps: CloneSetDeps, informers: CloneSetInformers, options: CloneSetControllerOptions) {
    const { pods, claims, revisions, cloneSets, jobs } = informers;
    pods.addIndex(OWNER_UID, ownerUids);
    claims.addIndex(OWNER_UID, ownerUids);
    revisions.addIndex(OWNER_UID, ownerUids);
    jobs.addIndex(OWNER_UID, ownerUids);
    this.reconciler = new CloneSetReconciler(deps, {
      cloneSet: (key) => cloneSets.get(key),
      ownedPods: (uid) => pods.byIndex(OWNER_UID, uid) as unknown as Pod[],
      ownedClaims: (uid) => claims.byIndex(OWNER_UID, uid) as unknown as PersistentVolumeClaim[],
      ownedRevisions: (uid) => revisions.byIndex(OWNER_UID, uid) as unknown as ControllerRevision[],
      ownedJobs: (cs) => jobs.byIndex(OWNER_UID, cs.metadata?.uid ?? ''),
    });
    this.controller = new Controller({
      name: 'cloneset',
      workers: options.workers,
      logger: options.logger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      reconcile: async (ctx, key) => {
        this.reconciles.set(key, (this.reconciles.get(key) ?? 0) + 1);
        return this.reconciler.reconcile(key, ctx.log);
      },
    });
    const enqueue = (key: string) => this.controller.enqueue(key);
    cloneSets.addEventHandler({
      add: (cs) => enqueue(objectKey(cs)),
      update: (old, cs) => {
        // its own status writes do not need another round: the status is derived from the pods
        if (
          old.metadata?.generation !== cs.metadata?.generation ||
          old.metadata?.deletionTimestamp !== cs.metadata?.deletionTimestamp ||
          JSON.stringify(old.metadata?.labels) !== JSON.stringify(cs.metadata?.labels) ||
          JSON.stringify(old.metadata?.annotations) !== JSON.stringify(cs.metadata?.annotations)
        )
          enqueue(objectKey(cs));
      },
      delete: (cs) => enqueue(objectKey(cs)),
    });
    const scale = deps.scaleExpectations;
    const rv = deps.resourceVersionExpectations;
    const created = (o: KubeObject, deleted: (o: KubeObject) => void) => {
      if (o.metadata?.deletionTimestamp) return deleted(o);
      const key = cloneSetOf(o.metadata?.namespace, controllerOf(o));
      if (!key) return;
      const wasSatisfied = scale.check(key).satisfied;
      scale.creationObserved(key, o.metadata?.name ?? '');
      if (wasSatisfied) this.controller.queue.addAfter(key, this.initial.when(key));
      else {
        this.initial.forget(key);
        enqueue(key);
      }
    };
    const podDeleted = (o: KubeObject) => {
      rv.delete(o);
      const key = cloneSetOf(o.metadata?.namespace, controllerOf(o));
      if (!key) return;
      scale.deletionObserved(key, o.metadata?.name ?? '');
      enqueue(key);
    };
    pods.addEventHandler({
      add: (p) => created(p, podDeleted),
      update: (old, p) => {
        if (old.metadata?.resourceVersion === p.metadata?.resourceVersion) return;
        const labelsChanged = JSON.stringify(old.metadata?.labels) !== JSON.stringify(p.metadata?.labels);
        if (p.metadata?.deletionTimestamp) {
          podDeleted(p);
          if (labelsChanged) podDeleted(old);
          return;
        }
        const oldRef = controllerOf(old);
        const ref = controllerOf(p);
        if (JSON.stringify(oldRef) !== JSON.stringify(ref)) {
          const oldKey = cloneSetOf(old.metadata?.namespace, oldRef);
          if (oldKey) enqueue(oldKey);
        }
        const key = cloneSetOf(p.metadata?.namespace, ref);
        if (key) enqueue(key);
      },
      delete: podDeleted,
    });
    const claimDeleted = (o: KubeObject) => {
      const key = cloneSetOf(o.metadata?.namespace, controllerOf(o));
      if (!key) return;
      scale.deletionObserved(key, o.metadata?.name ?? '');
      enqueue(key);
    };
    claims.addEventHandler({
      add: (c) => created(c, claimDeleted),
      update: (_old, c) => {
        if (c.metadata?.deletionTimestamp) claimDeleted(c);
      },
      delete: claimDeleted,
    });
  }
}
