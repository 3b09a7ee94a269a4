import type { KubeObject, Request, ResourceVersionExpectations, ScaleExpectations } from '@kruise/runtime';
import { ItemExponentialRateLimiter, requestKey } from '@kruise/runtime';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';

/** Anything with object metadata (a cached object, a typed pod). */
interface WithOwners {
  metadata?: { ownerReferences?: OwnerReference[] };
}

/** The UIDs of an object's owners: the index a workload finds its pods, revisions and jobs by. */
export const ownerUids = (o: WithOwners): string[] => (o.metadata?.ownerReferences ?? []).map((r) => r.uid);

/** An object's controller reference, if it has one. */
export const controllerOf = (o: WithOwners): OwnerReference | undefined =>
  (o.metadata?.ownerReferences ?? []).find((r) => r.controller);

/** Whether two values differ as JSON (labels, annotations, references). */
export const changed = (a: unknown, b: unknown): boolean => JSON.stringify(a) !== JSON.stringify(b);

/** The request that reconciles an object itself. */
export const requestOf = (o: KubeObject): Request => ({
  namespace: o.metadata?.namespace ?? '',
  name: o.metadata?.name ?? '',
});

/**
 * The Kruise workload of `kind` (group apps.kruise.io) a controller reference names, as a request;
 * the reference defaults to the object's own controller reference.
 */
export function ownerRequest(kind: string): (o: KubeObject, ref?: OwnerReference) => Request | undefined {
  return (o, ref = controllerOf(o)) => {
    if (ref?.kind !== kind || ref.apiVersion.split('/')[0] !== 'apps.kruise.io') return undefined;
    return { namespace: o.metadata?.namespace ?? '', name: ref.name };
  };
}

/**
 * Whether an update of a workload is worth a reconcile: a periodic resync (`--sync-period`: the same
 * object redelivered, reconciled as upstream does on every event), a new generation, a deletion, or
 * changed labels or annotations — not a write of its own status alone.
 */
export const workloadChanged = (o: KubeObject, n: KubeObject): boolean =>
  o.metadata?.resourceVersion === n.metadata?.resourceVersion ||
  o.metadata?.generation !== n.metadata?.generation ||
  o.metadata?.deletionTimestamp !== n.metadata?.deletionTimestamp ||
  changed(o.metadata?.labels, n.metadata?.labels) ||
  changed(o.metadata?.annotations, n.metadata?.annotations);

/** The pod events of a workload controller, with its scale and resourceVersion expectations. */
export interface PodExpectationEvents {
  /** A new pod: its creation observed, its owner queued (with a 3 s → 30 s backoff when nothing was expected: start-up). */
  created(o: KubeObject): Request | undefined;
  /** A pod gone (or being deleted): its deletion observed, its owner queued. */
  deleted(o: KubeObject): Request | undefined;
  /** An update of a pod being deleted: its owner, and the one before when its labels changed. */
  deleting(o: KubeObject, p: KubeObject): Request[];
}

/**
 * Upstream's pod event handler of a workload controller (CloneSet, Advanced StatefulSet, Advanced
 * DaemonSet): a pod being deleted counts as deleted (with `deletionsByCount`, once, however many
 * updates of it follow before it is gone, so it is not taken for another pod's deletion); a pod
 * created while its owner expected nothing (the cache filling at start-up) queues the owner after a
 * per-owner backoff instead of at once.
 */
export function podExpectationEvents(deps: {
  ownerOf: (o: KubeObject) => Request | undefined;
  scale: ScaleExpectations;
  rv: ResourceVersionExpectations;
  queue: { addAfter(key: string, ms: number): void };
  /** Deletions are expected by count, not by name (daemon pods): count each pod's deletion once. */
  deletionsByCount?: boolean;
}): PodExpectationEvents {
  const { ownerOf, scale, rv, queue } = deps;
  const initial = new ItemExponentialRateLimiter<string>(3000, 30_000);
  // with deletions expected by count: pods whose deletion was counted while they terminate
  // (upstream's deletionUIDCache), so each is counted once, however many updates of the terminating
  // pod and its removal follow (by name, every event counts: a deletion of the same name may be
  // expected again before the pod is gone)
  const counted = new Set<string>();
  const observe = (o: KubeObject, gone: boolean): Request | undefined => {
    rv.delete(o);
    const req = ownerOf(o);
    if (!req) return undefined;
    const owner = requestKey(req);
    if (!deps.deletionsByCount) {
      scale.deletionObserved(owner, o.metadata?.name);
      return req;
    }
    const key = `${owner}|${o.metadata?.uid ?? o.metadata?.name}`;
    if (!counted.has(key)) scale.deletionObserved(owner, o.metadata?.name);
    if (gone) counted.delete(key);
    else counted.add(key);
    return req;
  };
  const deleted = (o: KubeObject) => observe(o, true);
  const terminating = (o: KubeObject) => observe(o, false);
  return {
    deleted,
    created: (o) => {
      if (o.metadata?.deletionTimestamp) return terminating(o);
      const req = ownerOf(o);
      if (!req) return undefined;
      const key = requestKey(req);
      const wasSatisfied = scale.satisfied(key);
      scale.creationObserved(key, o.metadata?.name);
      if (!wasSatisfied) {
        initial.forget(key);
        return req;
      }
      queue.addAfter(key, initial.when(key));
      return undefined;
    },
    deleting: (o, p) => {
      const now = terminating(p);
      const before = changed(o.metadata?.labels, p.metadata?.labels) ? terminating(o) : undefined;
      return [now, before].filter((r): r is Request => r !== undefined);
    },
  };
}
