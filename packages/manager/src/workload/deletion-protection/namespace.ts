import type { FeatureGates } from '@kruise/api';
import type { Namespace, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { isPodActive } from '../pod-state.ts';
import { cascadingProtection, dependantsDenial } from './check.ts';

/** What a namespace's `Cascading` check reads: the namespace's pods and PVCs (list calls at DELETE time). */
export interface NamespaceContents {
  pods(namespace: string): Promise<Pod[]>;
  persistentVolumeClaims(namespace: string): Promise<PersistentVolumeClaim[]>;
}

/**
 * A namespace's deletion: `Always` denies; `Cascading` denies while the namespace has active pods
 * (not Succeeded, not Failed, not being deleted), then while it has PVCs in phase Bound not being
 * deleted. A failed list denies too, in upstream's words.
 */
export async function namespaceDeletionDenial(
  gates: FeatureGates,
  ns: Namespace | undefined,
  contents: NamespaceContents,
): Promise<string | undefined> {
  const decided = cascadingProtection(gates, ns);
  if (!decided || 'denial' in decided) return decided?.denial;
  const name = ns?.metadata?.name ?? '';
  return (
    (await dependantsDenial(
      decided.cascading,
      'active pods',
      async () => (await contents.pods(name)).filter(isPodActive).length,
      (error) => `forbidden by ResourcesProtectionDeletion for list pods error: ${error}`,
    )) ??
    dependantsDenial(
      decided.cascading,
      '"Bound" status pvc',
      async () =>
        (await contents.persistentVolumeClaims(name)).filter(
          (c) => !c.metadata?.deletionTimestamp && c.status?.phase === 'Bound',
        ).length,
      (error) => `forbidden by ResourcesProtectionDeletion for list pvc error: ${error}`,
    )
  );
}
