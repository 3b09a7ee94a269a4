import type { StatefulSet } from '@kruise/api';
import { sortRevisions } from '@kruise/kube-compat/controller-revision';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { templateFromRevision } from '../../workload/inplaceupdate/calculate.ts';
import {
  type ActiveRevisions,
  type RevisionStore,
  resolveRevisions,
  revisionsToTruncate,
} from '../../workload/revision/history.ts';
import { defaultRevisionAdapter } from '../../workload/revision/pod-revision.ts';

/** The apiVersion the controller writes in owner references (the storage version). */
export const STATEFULSET_API_VERSION = 'apps.kruise.io/v1beta1';

/**
 * The current and update revisions of a StatefulSet (creating or renumbering the update revision as
 * needed), from its history: revisions named `<set>-<hash>` over the pod template, labelled with the
 * template's labels and carrying the set's annotations, as upstream's.
 */
export function activeRevisions(
  store: RevisionStore,
  set: StatefulSet,
  history: ControllerRevision[],
): Promise<ActiveRevisions> {
  return resolveRevisions(
    store,
    {
      apiVersion: STATEFULSET_API_VERSION,
      kind: 'StatefulSet',
      metadata: {
        name: set.metadata?.name ?? '',
        namespace: set.metadata?.namespace,
        uid: set.metadata?.uid ?? '',
        ...(set.metadata?.annotations ? { annotations: set.metadata.annotations } : {}),
      },
      template: set.spec!.template,
      volumeClaimTemplatesHash: false,
    },
    sortRevisions(history),
    set.status ?? {},
  );
}

/** The set as of a revision: its template replaced by the revision's (upstream's ApplyRevision). */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  return { ...set, spec: { ...set.spec!, template: templateFromRevision(revision) } };
}

/** The revision a pod was made from (its `controller-revision-hash` label). */
export const podRevision = (pod: Pod) => pod.metadata?.labels?.['controller-revision-hash'] ?? '';

/**
 * Deletes the oldest revisions that are neither current, update nor the revision of a pod, keeping
 * revisionHistoryLimit (default 10) of them (upstream's truncateHistory).
 */
export async function truncateHistory(
  store: RevisionStore,
  set: StatefulSet,
  pods: Pod[],
  history: ControllerRevision[],
  active: { current: string; update: string },
): Promise<void> {
  const inUse = (name: string) => pods.some((p) => defaultRevisionAdapter.matches(p.metadata?.labels, name));
  for (const r of revisionsToTruncate(history, active, inUse, set.spec?.revisionHistoryLimit ?? 10))
    await store.delete(r);
}
