import type { CloneSet } from '@kruise/api';
import { isAlreadyExists, isNotFound, type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { templateFromRevision } from '../../workload/inplaceupdate/calculate.ts';
import {
  type ActiveRevisions,
  type RevisionStore,
  resolveRevisions,
  revisionsToTruncate,
  sortRevisions,
} from '../../workload/revision/history.ts';
import { hasRevision } from '../../workload/revision/pod-revision.ts';

const asRevision = (o: KubeObject) => o as unknown as ControllerRevision;

/** ControllerRevisions of a namespace over the API. */
export function revisionStore(client: KubeClient, namespace: string): RevisionStore {
  return {
    create: async (r) => {
      try {
        return asRevision(await client.create(Resources.ControllerRevision, r as unknown as KubeObject));
      } catch (err) {
        if (isAlreadyExists(err)) Object.assign(err as object, { alreadyExists: true });
        throw err;
      }
    },
    get: async (name) => {
      try {
        return asRevision(await client.get(Resources.ControllerRevision, namespace, name));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    update: async (r) =>
      asRevision(await client.update(Resources.ControllerRevision, r as unknown as KubeObject)),
    delete: async (r) => {
      try {
        await client.delete(Resources.ControllerRevision, namespace, r.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}

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
