import {
  POD_REVISION_LABEL,
  podTemplateHash,
  revisionPayload,
  sortRevisions,
  storedPayload,
} from '@kruise/kube-compat/controller-revision';
import type { KubeObject } from '../../registry/types.ts';
import type { Revision, RevisionHistory } from '../workloads/revision-history.ts';

/** The controller reference a DaemonSet puts on what it creates. */
export const daemonSetRef = (ds: KubeObject) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  name: ds.metadata?.name,
  uid: ds.metadata?.uid,
  controller: true,
  blockOwnerDeletion: true,
});

/** The DaemonSet's revision now, the others, and the collision count. */
export interface DaemonSetRevisions {
  current: Revision;
  old: Revision[];
  /** The hash the current revision's pods carry in `controller-revision-hash`. */
  hash: string;
  collisionCount: number;
}

/** Whether a revision holds the DaemonSet's template now (Match). */
const matches = (ds: KubeObject, r: KubeObject) =>
  storedPayload(r.data) === storedPayload(JSON.parse(revisionPayload(ds.spec?.template)));

/**
 * The revision of the DaemonSet's template (constructHistory and snapshot): the revision whose data
 * is the template (the newest when several are), renumbered after the others when it is not the
 * last (a rollback); else a new one named `<ds>-<hash>`, labelled with the template's labels and
 * `controller-revision-hash: <hash>`, annotated with the DaemonSet's annotations. A name taken by
 * another template bumps the collision count.
 */
export async function constructHistory(
  history: RevisionHistory,
  ds: KubeObject,
): Promise<DaemonSetRevisions> {
  const all = sortRevisions(history.owned(ds));
  const currents = all.filter((r) => matches(ds, r));
  const old = all.filter((r) => !matches(ds, r));
  const next = (old.length ? Math.max(...old.map((r) => r.revision)) : 0) + 1;
  let collisionCount: number = ds.status?.collisionCount ?? 0;
  let current = currents[currents.length - 1];
  if (current && current.revision < next) current = await history.renumber(current, next);
  for (let tries = 0; !current && tries < 100; tries++) {
    const hash = podTemplateHash(ds.spec?.template, collisionCount);
    const revision: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${ds.metadata?.name}-${hash}`,
        namespace: ds.metadata?.namespace,
        labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [POD_REVISION_LABEL]: hash },
        ...(ds.metadata?.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
        ownerReferences: [daemonSetRef(ds)],
      },
      data: JSON.parse(revisionPayload(ds.spec?.template)),
      revision: next,
    };
    current = await history.create(revision);
    if (current) break;
    const existing = history.get(ds.metadata?.namespace, revision.metadata!.name);
    if (existing && matches(ds, existing)) current = existing;
    else collisionCount++;
  }
  if (!current) throw new Error(`no free revision name for DaemonSet ${ds.metadata?.name}`);
  for (const extra of currents)
    if (extra !== current && extra.metadata?.name !== current.metadata?.name) old.push(extra);
  const hash = current.metadata?.labels?.[POD_REVISION_LABEL] ?? current.metadata?.name;
  return { current, old, hash, collisionCount };
}

/**
 * Deletes the oldest revisions no pod runs beyond revisionHistoryLimit (default 10) of them
 * (cleanupHistory).
 */
export async function cleanupHistory(
  history: RevisionHistory,
  ds: KubeObject,
  pods: KubeObject[],
  revisions: DaemonSetRevisions,
): Promise<void> {
  const live = new Set(pods.map((p) => p.metadata?.labels?.[POD_REVISION_LABEL]).filter(Boolean));
  const limit = ds.spec?.revisionHistoryLimit ?? 10;
  const unused = sortRevisions(revisions.old).filter(
    (r) => !live.has(r.metadata?.labels?.[POD_REVISION_LABEL]),
  );
  for (const r of unused.slice(0, Math.max(0, unused.length - limit))) await history.delete(r);
}
