import { SIDECARSET_CUSTOM_VERSION_LABEL, type SidecarSet } from '@kruise/api';
import {
  CONTROLLER_REVISION_HASH_KEY,
  hashRevision,
  nextRevisionNumber,
  revisionName,
  sortRevisions,
} from '@kruise/kube-compat/controller-revision';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { type RevisionStore, storeRevision } from '../../workload/revision/history.ts';
import {
  podSidecarSetRevision,
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  SIDECARSET_NAME_LABEL,
  sidecarSetRevisionData,
} from '../../workload/sidecarset/index.ts';

/** The apiVersion of the owner references on SidecarSet revisions (the storage version). */
export const SIDECARSET_API_VERSION = 'apps.kruise.io/v1beta1';

/**
 * A new revision of the SidecarSet in the Kruise namespace (upstream's NewRevision): named
 * `<name>-<hash>` over the recorded spec, labelled with the SidecarSet's labels, its name
 * (`kruise.io/sidecarset-name`), its customVersion and the hash; annotated with its annotations.
 */
export function newSidecarSetRevision(
  sidecarSet: SidecarSet,
  namespace: string,
  revision: number,
  collisionCount: number,
): ControllerRevision {
  const payload = sidecarSetRevisionData(sidecarSet);
  const hash = hashRevision(payload, collisionCount);
  const m = sidecarSet.metadata ?? {};
  const custom = sidecarSet.spec?.customVersion;
  const annotations = { ...(m.annotations ?? {}) };
  for (const key of [SIDECARSET_HASH_ANNOTATION, SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION])
    if (!annotations[key]) delete annotations[key];
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(m.name ?? '', hash),
      namespace,
      labels: {
        ...(m.labels ?? {}),
        [CONTROLLER_REVISION_HASH_KEY]: hash,
        ...(custom ? { [SIDECARSET_CUSTOM_VERSION_LABEL]: custom } : {}),
        [SIDECARSET_NAME_LABEL]: m.name ?? '',
      },
      annotations,
      ownerReferences: [
        {
          apiVersion: SIDECARSET_API_VERSION,
          kind: 'SidecarSet',
          name: m.name ?? '',
          uid: m.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    data: JSON.parse(payload),
    revision,
  };
}

/** The revision the SidecarSet is at and its history after registering it. */
export interface LatestRevision {
  latest: ControllerRevision;
  history: ControllerRevision[];
  collisionCount: number;
}

/**
 * Registers the SidecarSet's latest revision (upstream's registerLatestRevision): the last revision
 * when equal, an older equal one brought forward, or a new one; its customVersion label brought up
 * to date.
 */
export async function registerLatestRevision(
  store: RevisionStore & { labelRevision(r: ControllerRevision, key: string, value: string): Promise<void> },
  sidecarSet: SidecarSet,
  namespace: string,
  history: ControllerRevision[],
): Promise<LatestRevision> {
  const sorted = sortRevisions(history);
  const collision = { value: sidecarSet.status?.collisionCount ?? 0 };
  const candidate = newSidecarSetRevision(sidecarSet, namespace, nextRevisionNumber(sorted), collision.value);
  const latest = await storeRevision(store, sidecarSet.metadata?.name ?? '', candidate, sorted, collision);
  const custom = sidecarSet.spec?.customVersion;
  if (custom && latest.metadata?.labels?.[SIDECARSET_CUSTOM_VERSION_LABEL] !== custom)
    await store.labelRevision(latest, SIDECARSET_CUSTOM_VERSION_LABEL, custom);
  const others = sorted.filter((r) => r.metadata?.name !== latest.metadata?.name);
  return { latest, history: [...others, latest], collisionCount: collision.value };
}

/**
 * The revisions still in use (upstream's filterActiveRevisions): those the matched pods' sidecars
 * came from, the pinned `injectionStrategy.revision.revisionName`, and the newest revision labelled
 * with the pinned customVersion.
 */
export function activeRevisions(
  sidecarSet: SidecarSet,
  pods: Pod[],
  history: ControllerRevision[],
): Set<string> {
  const name = sidecarSet.metadata?.name ?? '';
  const active = new Set<string>();
  for (const p of pods) {
    const r = podSidecarSetRevision(p, name);
    if (r) active.add(r);
  }
  const pinned = sidecarSet.spec?.injectionStrategy?.revision;
  if (pinned?.revisionName) active.add(pinned.revisionName);
  if (pinned?.customVersion) {
    const labelled = sortRevisions(
      history.filter((r) => r.metadata?.labels?.[SIDECARSET_CUSTOM_VERSION_LABEL] === pinned.customVersion),
    );
    const newest = labelled[labelled.length - 1];
    if (newest) active.add(newest.metadata?.name ?? '');
  }
  return active;
}

/**
 * The revisions to delete beyond revisionHistoryLimit (default 10, at least 1), oldest first,
 * never the latest nor one in use (upstream's truncateHistory); `short` is how many could not be
 * deleted for being in use.
 */
export function revisionsToDelete(
  sidecarSet: SidecarSet,
  pods: Pod[],
  history: ControllerRevision[],
): { remove: ControllerRevision[]; short: number } {
  const limit = Math.max(1, sidecarSet.spec?.revisionHistoryLimit ?? 10);
  if (history.length <= limit) return { remove: [], short: 0 };
  let count = history.length - limit;
  const active = activeRevisions(sidecarSet, pods, history);
  const remove: ControllerRevision[] = [];
  for (let i = 0; i < history.length - 1 && count > 0; i++) {
    if (active.has(history[i]!.metadata?.name ?? '')) continue;
    remove.push(history[i]!);
    count--;
  }
  return { remove, short: count };
}
