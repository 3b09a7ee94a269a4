import { KruiseResources } from '@kruise/api';
import type { Informer, KubeObject, Manager } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  KNOWN_WORKLOADS,
  knownWorkloadOf,
  trimmedDeployments,
  trimmedReplicaSets,
  trimmedStatefulSets,
} from '../../workload/controllerfinder/index.ts';
import type { WorkloadIdentity } from '../../workload/pub/relation.ts';

/** A workload informer whose changes concern budgets, with the kind its objects are. */
export interface WatchedWorkloads {
  informer: Informer<KubeObject>;
  apiVersion: string;
  kind: string;
}

/**
 * The workloads whose replica changes and deletions queue budgets (upstream's watches: CloneSet,
 * Advanced StatefulSet, Deployment, StatefulSet), from the shared caches the controller finder
 * reads, and a pod's workload as read from them at once (a ReplicaSet's Deployment), for the event
 * handlers, which cannot wait.
 */
export function budgetWorkloads(manager: Manager): {
  watched: WatchedWorkloads[];
  workloadOf(pod: Pod): WorkloadIdentity | undefined;
} {
  const f = manager.informers;
  const replicaSets = trimmedReplicaSets(manager);
  const k = KNOWN_WORKLOADS;
  const watched: WatchedWorkloads[] = [
    { informer: f.informerFor<KubeObject>({ resource: KruiseResources.CloneSet }), ...k.CloneSet },
    {
      informer: f.informerFor<KubeObject>({ resource: KruiseResources.StatefulSet }),
      ...k.AdvancedStatefulSet,
    },
    { informer: trimmedDeployments(manager), ...k.Deployment },
    { informer: trimmedStatefulSets(manager), ...k.StatefulSet },
  ];
  return {
    watched,
    workloadOf(pod) {
      const ref = (pod.metadata?.ownerReferences ?? []).find((r) => r.controller);
      if (!ref) return undefined;
      if (knownWorkloadOf(ref.apiVersion, ref.kind) === 'ReplicaSet') {
        const rs = replicaSets.get(`${pod.metadata?.namespace}/${ref.name}`);
        const owner = (rs?.metadata?.ownerReferences ?? []).find(
          (r: { controller?: boolean; kind: string }) => r.controller && r.kind === 'Deployment',
        );
        if (owner) return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name };
      }
      return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name };
    },
  };
}
