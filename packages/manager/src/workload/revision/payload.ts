import { compareBytes, deepHashJsonBytes, fnv1_32, goMarshal, safeEncodeString } from '@kruise/kube-compat';
import type { PersistentVolumeClaim, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { encodeStruct } from './go-encode.ts';

/**
 * A workload revision's stored data: `{"spec":{"template":{"$patch":"replace",…}}}` with every key
 * sorted, byte for byte what OpenKruise's Go controllers store, so revisions they created are
 * recognised as equal to ours.
 */
export function revisionPayload(template: PodTemplateSpec | undefined): string {
  const encoded = encodeStruct((template ?? {}) as Record<string, unknown>, 'PodTemplateSpec');
  return goMarshal({ spec: { template: { ...encoded, $patch: 'replace' } } }, true);
}

/** The bytes a stored revision's `data` compares by (its JSON re-marshalled with sorted keys). */
export function storedPayload(data: unknown): string {
  return goMarshal(data ?? null, true);
}

/**
 * Kubernetes' HashControllerRevision: FNV-1 32-bit over the payload followed by the decimal
 * collision count, the decimal sum safe-encoded (`bcdfghjklmnpqrstvwxz2456789`).
 */
export function hashRevision(payload: string, collisionCount: number | undefined): string {
  const bytes = Buffer.from(payload + (collisionCount === undefined ? '' : String(collisionCount)), 'utf8');
  return safeEncodeString(String(fnv1_32(bytes)));
}

/** A ControllerRevision's name: `<parent>-<hash>`, the parent's name cut to 223 characters. */
export function revisionName(parentName: string, hash: string): string {
  return `${parentName.slice(0, 223)}-${hash}`;
}

/** Annotation holding the hash of a CloneSet's volumeClaimTemplates on each revision. */
export const VCT_HASH_ANNOTATION = 'kruise.io/cloneset-volumeclaimtemplate-hash';

/**
 * Kruise's hash of volumeClaimTemplates: name and spec of each template, sorted by name, as Go
 * marshals `[]PersistentVolumeClaim`, FNV-32a over its spew dump; '' when there are none.
 */
export function volumeClaimTemplatesHash(templates: PersistentVolumeClaim[] | undefined): string {
  if (!templates?.length) return '';
  const claims = templates
    .map((t) =>
      encodeStruct(
        { metadata: { name: t.metadata?.name }, spec: t.spec } as Record<string, unknown>,
        'PersistentVolumeClaim',
      ),
    )
    .sort((a, b) =>
      compareBytes(String((a.metadata as any).name ?? ''), String((b.metadata as any).name ?? '')),
    );
  return String(deepHashJsonBytes(goMarshal(claims)));
}
