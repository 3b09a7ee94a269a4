import type { CloneSet } from '@kruise/api';
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
import { hasRevision } from '../../workload/revision/pod-revision.ts';

/**
 * The current and update revisions of a CloneSet (creating or renumbering the update revision as
 * needed) from its sorted history.
 */
export function activeRevisions(
  store: RevisionStore,
  cs: CloneSet,
  history: ControllerRevision[],
): Promise<ActiveRevisions> {
  return resolveRevisions(
    store,
    {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: {
        name: cs.metadata?.name ?? '',
        namespace: cs.metadata?.namespace,
        uid: cs.metadata?.uid ?? '',
        ...(cs.metadata?.annotations ? { annotations: cs.metadata.annotations } : {}),
      },
      template: cs.spec!.template,
      ...(cs.spec?.volumeClaimTemplates ? { volumeClaimTemplates: cs.spec.volumeClaimTemplates } : {}),
    },
    sortRevisions(history),
    cs.status ?? {},
  );
}

/** The CloneSet as of a revision: its template replaced by the revision's (upstream's ApplyRevision). */
export function applyRevision(cs: CloneSet, revision: ControllerRevision): CloneSet {
  return { ...cs, spec: { ...cs.spec!, template: templateFromRevision(revision) } };
}

/**
 * Deletes the oldest revisions neither current, update nor used by a pod, keeping
 * revisionHistoryLimit (default 10) of them (upstream's truncateHistory).
 */
export async function truncateHistory(
  store: RevisionStore,
  cs: CloneSet,
  pods: Pod[],
  history: ControllerRevision[],
  active: { current: string; update: string },
): Promise<void> {
  const inUse = (name: string) => pods.some((p) => hasRevision(p.metadata?.labels, name));
  for (const r of revisionsToTruncate(history, active, inUse, cs.spec?.revisionHistoryLimit ?? 10))
    await store.delete(r);
}
