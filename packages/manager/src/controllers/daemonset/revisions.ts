import type { DaemonSet } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  type RevisionStore,
  resolveRevisions,
  revisionsToTruncate,
} from '../../workload/revision/history.ts';
import { DAEMONSET_API_VERSION, DAEMONSET_HASH_LABEL } from './context.ts';
import { revisionHash } from './rolling-update.ts';

/** The DaemonSet's revision now (created or brought forward as needed), the others, and the collision count. */
export interface DaemonSetRevisions {
  current: ControllerRevision;
  old: ControllerRevision[];
  collisionCount: number;
}

/**
 * The revision the DaemonSet's template is at (constructHistory): revisions named `<ds>-<hash>`
 * over the pod template, labelled with the template's labels and `controller-revision-hash: <hash>`
 * (the label its pods carry), annotated with the DaemonSet's annotations; an older equal revision
 * is brought forward (a rollback) rather than duplicated.
 */
export async function constructHistory(
  store: RevisionStore,
  ds: DaemonSet,
  history: ControllerRevision[],
): Promise<DaemonSetRevisions> {
  const { update, collisionCount } = await resolveRevisions(
    store,
    {
      apiVersion: DAEMONSET_API_VERSION,
      kind: 'DaemonSet',
      metadata: {
        name: ds.metadata?.name ?? '',
        namespace: ds.metadata?.namespace,
        uid: ds.metadata?.uid ?? '',
        ...(ds.metadata?.annotations ? { annotations: ds.metadata.annotations } : {}),
      },
      template: ds.spec?.template ?? {},
      volumeClaimTemplatesHash: false,
      hashLabel: DAEMONSET_HASH_LABEL,
    },
    history,
    { collisionCount: ds.status?.collisionCount ?? 0 },
  );
  const old = history.filter((r) => r.metadata?.name !== update.metadata?.name);
  return { current: update, old, collisionCount };
}

/**
 * Deletes the oldest revisions no pod runs beyond revisionHistoryLimit (default 10) of them
 * (cleanupHistory).
 */
export async function cleanupHistory(
  store: RevisionStore,
  ds: DaemonSet,
  pods: Pod[],
  revisions: DaemonSetRevisions,
): Promise<void> {
  const live = new Set(pods.map((p) => p.metadata?.labels?.[DAEMONSET_HASH_LABEL]).filter(Boolean));
  const byName = new Map(revisions.old.map((r) => [r.metadata?.name ?? '', r]));
  const inUse = (name: string) => live.has(byName.has(name) ? revisionHash(byName.get(name)!) : undefined);
  const name = revisions.current.metadata?.name ?? '';
  for (const r of revisionsToTruncate(
    revisions.old,
    { current: name, update: name },
    inUse,
    ds.spec?.revisionHistoryLimit ?? 10,
  ))
    await store.delete(r);
}
