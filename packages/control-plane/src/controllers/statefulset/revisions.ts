import {
  CONTROLLER_REVISION_HASH_KEY,
  equalRevision,
  findEqualRevisions,
  hashRevision,
  nextRevisionNumber,
  revisionName,
  revisionPayload,
  sortRevisions,
  storedPayload,
} from '@kruise/kube-compat/controller-revision';
import type { KubeObject } from '../../registry/types.ts';
import type { Revision, RevisionHistory } from '../workloads/revision-history.ts';

/** The controller reference a StatefulSet puts on what it creates. */
export const setRef = (set: KubeObject) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  name: set.metadata?.name,
  uid: set.metadata?.uid,
  controller: true,
  blockOwnerDeletion: true,
});

/**
 * A revision of the set's template (the StatefulSet controller's newRevision): its data the
 * template patch, named `<set>-<hash>`, labelled with the template's labels and the hash, annotated
 * with the set's annotations.
 */
export function newRevision(set: KubeObject, number: number, collisionCount: number): Revision {
  const payload = revisionPayload(set.spec?.template);
  const hash = hashRevision(payload, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(set.metadata?.name, hash),
      namespace: set.metadata?.namespace,
      labels: { ...(set.spec?.template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_KEY]: hash },
      annotations: { ...(set.metadata?.annotations ?? {}) },
      ownerReferences: [setRef(set)],
    },
    data: JSON.parse(payload),
    revision: number,
  };
}

/** The revision the set's pods are at and the one they move to, and the collision count to report. */
export interface SetRevisions {
  current: Revision;
  update: Revision;
  collisionCount: number;
}

/**
 * The current and update revisions (getStatefulSetRevisions): the template's revision is the last
 * in history when equal to it, an older equal one renumbered (a rollback), or a new one created with
 * the history client's collision handling; the current one is the one status names, or the update.
 */
export async function statefulSetRevisions(history: RevisionHistory, set: KubeObject): Promise<SetRevisions> {
  const revisions = sortRevisions(history.owned(set));
  let collisionCount: number = set.status?.collisionCount ?? 0;
  const candidate = newRevision(set, nextRevisionNumber(revisions), collisionCount);
  const equal = findEqualRevisions(revisions, candidate);
  const last = revisions[revisions.length - 1];
  let update: Revision;
  if (equal.length && equalRevision(last, equal[equal.length - 1])) update = last!;
  else if (equal.length) update = await history.renumber(equal[equal.length - 1]!, candidate.revision);
  else {
    for (;;) {
      const attempt = newRevision(set, candidate.revision, collisionCount);
      const created = await history.create(attempt);
      if (created) {
        update = created;
        break;
      }
      const existing = history.get(set.metadata?.namespace, attempt.metadata?.name);
      if (existing && storedPayload(existing.data) === storedPayload(attempt.data)) {
        update = existing;
        break;
      }
      collisionCount++;
    }
  }
  const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
  return { current, update, collisionCount };
}

/**
 * Deletes the oldest revisions beyond revisionHistoryLimit (default 10) that are neither current,
 * update nor the revision of a live pod (truncateHistory).
 */
export async function truncateHistory(
  history: RevisionHistory,
  set: KubeObject,
  pods: KubeObject[],
  active: SetRevisions,
): Promise<void> {
  const live = new Set([
    active.current.metadata?.name,
    active.update.metadata?.name,
    ...pods.map((p) => p.metadata?.labels?.['controller-revision-hash']),
  ]);
  const old = sortRevisions(history.owned(set)).filter((r) => !live.has(r.metadata?.name));
  const limit = set.spec?.revisionHistoryLimit ?? 10;
  for (const r of old.slice(0, Math.max(0, old.length - limit))) await history.delete(r);
}
