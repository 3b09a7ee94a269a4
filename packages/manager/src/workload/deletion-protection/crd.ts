import type { FeatureGates } from '@kruise/api';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { cascadingProtection, dependantsDenial } from './check.ts';

/** The parts of a CustomResourceDefinition (v1 or v1beta1) the check reads. */
export interface CrdLike {
  metadata?: ObjectMeta;
  spec?: {
    group?: string;
    names?: { plural?: string; kind?: string; listKind?: string };
    versions?: { name?: string; storage?: boolean }[];
  };
}

/** Lists a CRD's custom resources in every namespace (group, storage version, plural). */
export type CustomResourceLister = (
  group: string,
  version: string,
  plural: string,
) => Promise<{ metadata?: ObjectMeta }[]>;

/**
 * A CRD's deletion: `Always` denies; `Cascading` needs gate DeletionProtectionForCRDCascadingGate
 * (denied without it) and denies while CRs not being deleted exist (listed at the storage version).
 */
export async function crdDeletionDenial(
  gates: FeatureGates,
  crd: CrdLike | undefined,
  listCustomResources: CustomResourceLister,
): Promise<string | undefined> {
  const decided = cascadingProtection(gates, crd);
  if (!decided || 'denial' in decided) return decided?.denial;
  if (!gates.enabled('DeletionProtectionForCRDCascadingGate'))
    return 'feature-gate DeletionProtectionForCRDCascadingGate is not enabled';
  const spec = crd?.spec ?? {};
  // (A malformed old object — fields of other types than a CRD's — names nothing.)
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const names: { plural?: unknown; listKind?: unknown } =
    spec.names !== null && typeof spec.names === 'object' ? spec.names : {};
  const group = text(spec.group);
  const versions: unknown[] = Array.isArray(spec.versions) ? spec.versions : [];
  const storage = versions.find(
    (v): v is { name?: string; storage?: boolean } =>
      v !== null && typeof v === 'object' && (v as { storage?: unknown }).storage === true,
  );
  const version = text(storage?.name);
  return dependantsDenial(
    decided.cascading,
    'active CRs',
    async () =>
      (await listCustomResources(group, version, text(names.plural))).filter(
        (i) => !i.metadata?.deletionTimestamp,
      ).length,
    (error) => `failed to list CRs of ${group}/${version}, Kind=${text(names.listKind)}: ${error}`,
  );
}
