import type { CloneSet } from '@kruise/api';
import { isNotFound, type KubeObject, Resources } from '@kruise/runtime';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { CloneSetDeps } from './context.ts';
import { message } from './scale.ts';
import { INSTANCE_ID_LABEL } from './scale-plan.ts';

const idOf = (o: { metadata?: { labels?: Record<string, string> } }) =>
  o.metadata?.labels?.[INSTANCE_ID_LABEL] ?? '';

/**
 * With scaleStrategy.disablePVCReuse (upstream's cleanupPVCs): the PVCs of an inactive pod are
 * handed to that pod (owner switched from the CloneSet), those of no pod are deleted; returns the
 * PVCs active pods use.
 */
export async function cleanupPVCs(
  deps: Pick<CloneSetDeps, 'client' | 'event'>,
  cs: CloneSet,
  active: Pod[],
  inactive: Pod[],
  pvcs: PersistentVolumeClaim[],
): Promise<PersistentVolumeClaim[]> {
  const activeIds = new Set(active.map(idOf).filter(Boolean));
  const inactiveById = new Map(inactive.filter((p) => idOf(p)).map((p) => [idOf(p), p]));
  const kept: PersistentVolumeClaim[] = [];
  for (const pvc of pvcs) {
    const id = idOf(pvc);
    if (activeIds.has(id)) {
      kept.push(pvc);
      continue;
    }
    const name = pvc.metadata?.name ?? '';
    const pod = inactiveById.get(id);
    try {
      if (pod) {
        const next = structuredClone(pvc);
        next.metadata!.ownerReferences = [
          ...(pvc.metadata?.ownerReferences ?? []).filter((r) => r.uid !== cs.metadata?.uid),
          { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
        ];
        try {
          await deps.client.update(Resources.PersistentVolumeClaim, next as unknown as KubeObject);
        } catch (err) {
          deps.event(cs, 'Warning', 'FailedUpdate', `failed to update PVC ${name}: ${message(err)}`);
          throw err;
        }
      } else {
        try {
          await deps.client.delete(Resources.PersistentVolumeClaim, pvc.metadata?.namespace, name);
        } catch (err) {
          if (!isNotFound(err))
            deps.event(cs, 'Warning', 'FailedDelete', `failed to clean up PVC ${name}: ${message(err)}`);
          throw err;
        }
      }
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return kept;
}
