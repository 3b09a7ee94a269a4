import { labelSelectorMatches } from '@kruise/kube-compat';
import type { KubeObject } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { controllerOf } from '../owner-events.ts';
import { isPodActive } from '../pod-state.ts';
import { isDeleting } from './resolved.ts';
import type { ControllerFinder, FinderSources, ObjectRef, ScaleAndSelector } from './types.ts';

/** Where a workload's pods are: their owners' UIDs, and a selector to fall back on when they own none. */
interface PodOwners {
  replicas: number;
  ownerUids: string[];
  selector?: LabelSelector;
}

/** The kinds whose pods are found by the workload's own UID alone (any group: upstream switches on the kind). */
const OWNING_KINDS = new Set(['StatefulSet', 'ReplicationController', 'CloneSet']);

/** Upstream's GetPodsForRef over a finder's sources and its reference resolution. */
export function podsForRefWith(
  sources: FinderSources,
  resolve: ControllerFinder['scaleAndSelectorForRef'],
  findReplicaSet: (ref: ObjectRef, namespace: string) => Promise<KubeObject | undefined>,
): ControllerFinder['podsForRef'] {
  /** A Deployment's ReplicaSets that are not being deleted (those scaled to 0 still have pods). */
  async function replicaSetUids(deployment: ScaleAndSelector, namespace: string): Promise<string[]> {
    if (!deployment.selector) return [];
    const owned = await sources.replicaSetsOwnedBy(namespace, deployment.uid);
    return owned
      .filter(
        (rs) =>
          !isDeleting(rs) &&
          controllerOf(rs)?.uid === deployment.uid &&
          labelSelectorMatches(deployment.selector, rs.metadata?.labels ?? {}),
      )
      .map((rs) => rs.metadata?.uid ?? '');
  }

  /** Where the pods of the workload a reference names are; undefined when it is missing or being deleted. */
  async function podOwners(ref: ObjectRef, namespace: string): Promise<PodOwners | undefined> {
    if (ref.kind === 'ReplicaSet') {
      const rs = await findReplicaSet(ref, namespace);
      if (!rs || isDeleting(rs)) return undefined;
      return { replicas: rs.spec?.replicas ?? 1, ownerUids: [rs.metadata?.uid ?? ''] };
    }
    const workload = await resolve(ref, namespace);
    if (!workload || isDeleting(workload)) return undefined;
    if (OWNING_KINDS.has(ref.kind)) return { replicas: workload.scale, ownerUids: [workload.uid] };
    if (ref.kind === 'Deployment') {
      const uids = await replicaSetUids(workload, namespace);
      return { replicas: workload.scale, ownerUids: uids.length ? uids : [workload.uid] };
    }
    return {
      replicas: workload.scale,
      ownerUids: [workload.uid],
      ...(workload.selector ? { selector: workload.selector } : {}),
    };
  }

  return async (ref, namespace, activeOnly) => {
    const owners = await podOwners(ref, namespace);
    if (!owners) return { pods: [], replicas: 0 };
    if (owners.replicas === 0) return { pods: [], replicas: 0 };
    const keep = (pods: Pod[]) => (activeOnly ? pods.filter(isPodActive) : pods);
    const pods: Pod[] = [];
    for (const uid of owners.ownerUids) pods.push(...keep(await sources.podsOwnedBy(namespace, uid)));
    // Workloads that do not own their pods directly are matched by their selector instead.
    if (owners.selector && pods.length === 0)
      return {
        pods: keep(await sources.podsMatching(namespace, owners.selector)),
        replicas: owners.replicas,
      };
    return { pods, replicas: owners.replicas };
  };
}
