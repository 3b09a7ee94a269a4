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
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { VCT_HASH_ANNOTATION, volumeClaimTemplatesHash } from './payload.ts';

/** The parts of a workload a revision is made from. */
export interface RevisionParent {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid: string; annotations?: Record<string, string> };
  template: PodTemplateSpec;
  volumeClaimTemplates?: PersistentVolumeClaim[];
  /**
   * Whether each revision carries the hash of the volumeClaimTemplates (CloneSet's revisions do:
   * a changed claim template recreates its pods; Advanced StatefulSet's do not). Default true.
   */
  volumeClaimTemplatesHash?: boolean;
  /**
   * The label each revision carries its hash in: `controller.kubernetes.io/hash` (Kubernetes'
   * history) unless given; Advanced DaemonSet's revisions carry it in `controller-revision-hash`,
   * the label its pods are matched by.
   */
  hashLabel?: string;
}

/** Where revisions are written (the API, or a map in tests). */
export interface RevisionStore {
  /** Creates a revision; throws an error whose `alreadyExists` is true when the name is taken. */
  create(revision: ControllerRevision): Promise<ControllerRevision>;
  get(name: string): Promise<ControllerRevision | undefined>;
  /** Replaces a revision (conflict errors propagate). */
  update(revision: ControllerRevision): Promise<ControllerRevision>;
  delete(revision: ControllerRevision): Promise<void>;
}

/** The controller owner reference a workload puts on what it creates. */
export function controllerRef(
  parent: Pick<RevisionParent, 'apiVersion' | 'kind' | 'metadata'>,
): OwnerReference {
  return {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    name: parent.metadata.name,
    uid: parent.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * A new (not yet stored) revision of `parent`: labels = template labels + hash, annotations = the
 * workload's annotations + the volumeClaimTemplates hash, named `<parent>-<hash>`.
 */
export function newRevision(
  parent: RevisionParent,
  revision: number,
  collisionCount: number,
): ControllerRevision {
  const payload = revisionPayload(parent.template);
  const hash = hashRevision(payload, collisionCount);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: revisionName(parent.metadata.name, hash),
      namespace: parent.metadata.namespace,
      labels: {
        ...(parent.template.metadata?.labels ?? {}),
        [parent.hashLabel ?? CONTROLLER_REVISION_HASH_KEY]: hash,
      },
      annotations: {
        ...(parent.metadata.annotations ?? {}),
        ...(parent.volumeClaimTemplatesHash === false
          ? {}
          : { [VCT_HASH_ANNOTATION]: volumeClaimTemplatesHash(parent.volumeClaimTemplates) }),
      },
      ownerReferences: [controllerRef(parent)],
    },
    data: JSON.parse(payload),
    revision,
  };
}

/** The revisions a workload is at and moving to, and the collision count to report. */
export interface ActiveRevisions {
  current: ControllerRevision;
  update: ControllerRevision;
  collisionCount: number;
}

const alreadyExists = (err: unknown) => (err as { alreadyExists?: boolean })?.alreadyExists === true;

/**
 * Creates a revision with Kubernetes' collision handling: on a name taken by different content the
 * collision count goes up and the hash is recomputed; taken by the same content, that one is used.
 */
async function createRevision(
  store: RevisionStore,
  parentName: string,
  revision: ControllerRevision,
  collisionCount: { value: number },
): Promise<ControllerRevision> {
  const payload = storedPayload(revision.data);
  for (;;) {
    const hash = hashRevision(payload, collisionCount.value);
    const candidate: ControllerRevision = {
      ...revision,
      metadata: {
        ...revision.metadata,
        name: revisionName(parentName, hash),
      },
    };
    try {
      return await store.create(candidate);
    } catch (err) {
      if (!alreadyExists(err)) throw err;
      const existing = await store.get(candidate.metadata!.name!);
      if (existing && storedPayload(existing.data) === payload) return existing;
      collisionCount.value++;
    }
  }
}

/**
 * The stored revision for `candidate` (built for the next revision number of `sorted` history):
 * the last revision when equal to it; an older equal one brought forward by giving it the
 * candidate's revision number (refreshing its volumeClaimTemplates hash); otherwise the candidate
 * created with Kubernetes' collision handling (`collision.value` goes up on each collision).
 */
export async function storeRevision(
  store: RevisionStore,
  parentName: string,
  candidate: ControllerRevision,
  sorted: ControllerRevision[],
  collision: { value: number },
): Promise<ControllerRevision> {
  const equal = findEqualRevisions(sorted, candidate);
  const last = sorted[sorted.length - 1];
  if (equal.length && equalRevision(last, equal[equal.length - 1])) return last!;
  if (equal.length) {
    const match = structuredClone(equal[equal.length - 1]!);
    const vctHash = candidate.metadata?.annotations?.[VCT_HASH_ANNOTATION];
    const stored = match.metadata?.annotations?.[VCT_HASH_ANNOTATION];
    if (vctHash !== undefined && (stored === undefined || stored !== vctHash))
      match.metadata = {
        ...match.metadata,
        annotations: { ...match.metadata?.annotations, [VCT_HASH_ANNOTATION]: vctHash },
      };
    return match.revision === candidate.revision
      ? match
      : await store.update({ ...match, revision: candidate.revision });
  }
  return createRevision(store, parentName, candidate, collision);
}

/**
 * The current and update revisions of a workload (OpenKruise's getActiveRevisions): the template's
 * revision is the last in history when equal to it; an older equal one is brought forward by
 * giving it the next revision number (rollback, refreshing its volumeClaimTemplates hash);
 * otherwise a new revision is created. The current revision is the one named in status, or the
 * update revision when none is.
 */
export async function resolveRevisions(
  store: RevisionStore,
  parent: RevisionParent,
  history: ControllerRevision[],
  status: { currentRevision?: string; collisionCount?: number },
): Promise<ActiveRevisions> {
  const sorted = sortRevisions(history);
  const collision = { value: status.collisionCount ?? 0 };
  const candidate = newRevision(parent, nextRevisionNumber(sorted), collision.value);
  const update = await storeRevision(store, parent.metadata.name, candidate, sorted, collision);
  const current = sorted.find((r) => r.metadata?.name === status.currentRevision) ?? update;
  return { current, update, collisionCount: collision.value };
}

/**
 * The revisions to delete to keep `limit` (default 10) of those neither current, update nor used
 * by a pod (`inUse(name)`), oldest first.
 */
export function revisionsToTruncate(
  history: ControllerRevision[],
  active: { current: string; update: string },
  inUse: (revisionName: string) => boolean,
  limit = 10,
): ControllerRevision[] {
  const notLive = sortRevisions(history).filter((r) => {
    const name = r.metadata?.name ?? '';
    return name !== active.current && name !== active.update && !inUse(name);
  });
  return notLive.length <= limit ? [] : notLive.slice(0, notLive.length - limit);
}
