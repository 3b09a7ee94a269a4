import { nodeSelectorTermMatches } from '@kruise/kube-compat/node-affinity';
import type { KubeObject } from '../../registry/types.ts';
import type { Store } from '../../store/store.ts';
import type { Filter } from './filters.ts';

/** A claim the pod uses, with its volume once bound. */
export interface PodClaim {
  claim: KubeObject;
  volume: KubeObject | undefined;
  /** Unbound, of a WaitForFirstConsumer class: the chosen node is written on it. */
  waitsForNode: boolean;
}

/**
 * VolumeBinding's PreFilter: the pod's claims, or the message that makes every node fail
 * (a missing or deleting claim, an unbound claim of an Immediate class).
 */
export function podClaims(store: Store, pod: KubeObject): { claims: PodClaim[]; message?: string } {
  const claims: PodClaim[] = [];
  const ns = pod.metadata?.namespace;
  for (const v of pod.spec?.volumes ?? []) {
    const name =
      v?.persistentVolumeClaim?.claimName ?? (v?.ephemeral ? `${pod.metadata?.name}-${v.name}` : undefined);
    if (!name) continue;
    const claim = store.get('/persistentvolumeclaims', ns, name)?.obj;
    if (!claim) return { claims, message: `persistentvolumeclaim "${name}" not found` };
    if (claim.metadata?.deletionTimestamp)
      return { claims, message: `persistentvolumeclaim "${name}" is being deleted` };
    const volumeName = claim.spec?.volumeName;
    if (volumeName && claim.status?.phase === 'Bound') {
      claims.push({
        claim,
        volume: store.get('/persistentvolumes', '', volumeName)?.obj,
        waitsForNode: false,
      });
      continue;
    }
    const sc = store.get('storage.k8s.io/storageclasses', '', claim.spec?.storageClassName ?? '')?.obj;
    if (sc?.volumeBindingMode !== 'WaitForFirstConsumer')
      return { claims, message: 'pod has unbound immediate PersistentVolumeClaims' };
    claims.push({ claim, volume: undefined, waitsForNode: true });
  }
  return { claims };
}

/** VolumeBinding's Filter: a bound volume's node affinity must admit the node. */
export const volumeBinding: Filter = (facts, info) => {
  for (const c of facts.claims ?? []) {
    const terms = c.volume?.spec?.nodeAffinity?.required?.nodeSelectorTerms;
    if (terms && !terms.some((t: any) => nodeSelectorTermMatches(t, info.node)))
      return { reasons: ['node(s) had volume node affinity conflict'], resolvable: false };
  }
  return undefined;
};
