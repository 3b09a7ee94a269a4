import { reservedOrdinals } from '@kruise/kube-compat/statefulset-ordinals';
import type { KubeObject } from '@kruise/runtime';
import { controllerOf } from '../owner-events.ts';
import { isKnownWorkload, KNOWN_WORKLOADS, type KnownWorkload } from './known-workloads.ts';
import { type FinderStep, resolved, uidMatches } from './resolved.ts';
import type { FinderSources, WorkloadRef } from './types.ts';

/** The replicas a built-in or Kruise workload wants (their API servers default an absent one to 1). */
const replicasOf = (obj: KubeObject): number =>
  typeof obj.spec?.replicas === 'number' ? obj.spec.replicas : 1;

/**
 * The finder's steps for the kinds it reads typed — ReplicationController, Deployment, ReplicaSet,
 * apps/v1 StatefulSet, CloneSet, Advanced StatefulSet, in upstream's order — and the read of one
 * known workload they share.
 */
export function workloadSteps(sources: FinderSources) {
  /** The known workload a reference names (group and kind match, uid if given); undefined else. */
  async function find(known: KnownWorkload, ref: WorkloadRef, namespace: string) {
    if (!isKnownWorkload(ref.apiVersion, ref.kind, known)) return undefined;
    const obj = await sources.workload(known, namespace, ref.name);
    return obj && uidMatches(ref, obj) ? obj : undefined;
  }

  /** A known workload found: its spec.replicas and spec.selector (an Advanced StatefulSet's reserved ordinals). */
  function toResolved(known: KnownWorkload, obj: KubeObject) {
    const selector = known === 'ReplicationController' ? undefined : obj.spec?.selector;
    return resolved(KNOWN_WORKLOADS[known], obj, replicasOf(obj), {
      ...(selector ? { selector } : {}),
      ...(known === 'AdvancedStatefulSet'
        ? { reserveOrdinals: reservedOrdinals(obj.spec?.reserveOrdinals) }
        : {}),
    });
  }

  /** The step resolving one known kind. */
  const step =
    (known: KnownWorkload): FinderStep =>
    async (ref, namespace) => {
      const obj = await find(known, ref, namespace);
      return obj && toResolved(known, obj);
    };

  const deployment = step('Deployment');

  /** A ReplicaSet, or the Deployment controlling it (when that is missing: nothing, the next steps try). */
  const replicaSet: FinderStep = async (ref, namespace) => {
    const rs = await find('ReplicaSet', ref, namespace);
    if (!rs) return undefined;
    const owner = controllerOf(rs);
    return owner?.kind === 'Deployment' ? deployment(owner, namespace) : toResolved('ReplicaSet', rs);
  };

  return {
    find,
    steps: [
      step('ReplicationController'),
      deployment,
      replicaSet,
      step('StatefulSet'),
      step('CloneSet'),
      step('AdvancedStatefulSet'),
    ] as FinderStep[],
  };
}
