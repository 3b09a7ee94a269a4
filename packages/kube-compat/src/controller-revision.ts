/**
 * ControllerRevisions as Kubernetes' controller history writes them (one implementation for the
 * native StatefulSet and DaemonSet and Kruise's workloads): the stored patch of a pod template, its
 * hash, the revision's name, and how histories are ordered and compared.
 */

import { fnv1_32, fnv1a_32, safeEncodeString } from './go-hash.ts';
import { goMarshal } from './go-json.ts';
import { coreStructCodec } from './go-struct-codec.ts';

/** Label on each ControllerRevision with its hash (history.ControllerRevisionHashLabel). */
export const CONTROLLER_REVISION_HASH_KEY = 'controller.kubernetes.io/hash';
/** Label on a StatefulSet's or DaemonSet's pods naming their revision (apps/v1 ControllerRevisionHashLabelKey). */
export const POD_REVISION_LABEL = 'controller-revision-hash';

/** What ordering and comparing revisions read of a ControllerRevision. */
export interface RevisionFields {
  metadata?: { name?: string; creationTimestamp?: string; labels?: Record<string, string> };
  revision: number;
  data?: unknown;
}

/**
 * A revision's stored data for a pod template: `{"spec":{"template":{"$patch":"replace",…}}}` with
 * every key sorted and the template as Go encodes a core/v1 PodTemplateSpec (the StatefulSet's and
 * DaemonSet's getPatch), byte for byte what Kubernetes' and OpenKruise's controllers store.
 */
export function revisionPayload(template: object | undefined): string {
  const encoded = coreStructCodec.encodeStruct(
    (template ?? {}) as Record<string, unknown>,
    'PodTemplateSpec',
  );
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

/** Kubernetes' history.EqualRevision: hash labels (when both numeric) then payload bytes. */
export function equalRevision(a: RevisionFields | undefined, b: RevisionFields | undefined): boolean {
  if (!a || !b) return a === b;
  const numeric = (r: RevisionFields) => {
    const h = r.metadata?.labels?.[CONTROLLER_REVISION_HASH_KEY];
    return h !== undefined && /^[+-]?\d+$/.test(h) && Math.abs(Number(h)) < 2 ** 31
      ? Number(h) >>> 0
      : undefined;
  };
  const ha = numeric(a);
  const hb = numeric(b);
  if (ha !== undefined && hb !== undefined && ha !== hb) return false;
  return storedPayload(a.data) === storedPayload(b.data);
}

/** The revisions equal to `needle`, in history order. */
export function findEqualRevisions<R extends RevisionFields>(revisions: R[], needle: RevisionFields): R[] {
  return revisions.filter((r) => equalRevision(r, needle));
}

/** Sorts revisions as Kubernetes does: by revision number, then creation time, then name. */
export function sortRevisions<R extends RevisionFields>(revisions: R[]): R[] {
  return [...revisions].sort(
    (a, b) =>
      a.revision - b.revision ||
      (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') ||
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
}

/** The number the next revision gets: one more than the last in (sorted) history, or 1. */
export function nextRevisionNumber(sorted: RevisionFields[]): number {
  return sorted.length ? sorted[sorted.length - 1]!.revision + 1 : 1;
}

/**
 * The hash of a pod template a DaemonSet names its revisions and labels its pods with
 * (controller.ComputeHash): FNV-32a over the template, then the collision count as 8 little-endian
 * bytes when given, the decimal sum safe-encoded. Go hashes go-spew's dump of the Go struct; this
 * hashes the dump of the template's Go JSON (as Kruise hashes JSON bytes), so the names have
 * upstream's form and change exactly when the template does, but differ from a Go controller's.
 */
export function podTemplateHash(template: object | undefined, collisionCount: number | undefined): string {
  const encoded = coreStructCodec.encodeStruct(
    (template ?? {}) as Record<string, unknown>,
    'PodTemplateSpec',
  );
  const spew = Buffer.from(`([]uint8)[${Buffer.from(goMarshal(encoded), 'utf8').join(' ')}]`, 'latin1');
  const tail = Buffer.alloc(collisionCount === undefined ? 0 : 8);
  if (collisionCount !== undefined) tail.writeUInt32LE(collisionCount >>> 0, 0);
  return safeEncodeString(String(fnv1a_32(Buffer.concat([spew, tail]))));
}
