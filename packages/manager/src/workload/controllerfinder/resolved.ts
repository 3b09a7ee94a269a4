import type { KubeObject } from '@kruise/runtime';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { ScaleAndSelector, WorkloadRef } from './types.ts';

/** One of the finder's ways to resolve a reference; undefined hands it to the next. */
export type FinderStep = (ref: WorkloadRef, namespace: string) => Promise<ScaleAndSelector | undefined>;

/** An object's metadata without server-side apply's bookkeeping. */
export function metadataOf(obj: KubeObject): ObjectMeta {
  const { managedFields: _, ...metadata } = (obj.metadata ?? {}) as ObjectMeta;
  return metadata;
}

/** Whether the object is one the reference may name: any, when it names no uid; else the one of that uid. */
export const uidMatches = (ref: WorkloadRef, obj: { metadata?: { uid?: string } }): boolean =>
  !ref.uid || obj.metadata?.uid === ref.uid;

/** Whether a resolved workload is being deleted. */
export const isDeleting = (w: { metadata?: { deletionTimestamp?: unknown } }): boolean =>
  Boolean(w.metadata?.deletionTimestamp);

/** A resolved workload from the object found, its scale and what else the step read. */
export function resolved(
  ref: { apiVersion: string; kind: string },
  obj: KubeObject,
  scale: number,
  extra: Pick<ScaleAndSelector, 'selector' | 'reserveOrdinals'> = {},
): ScaleAndSelector {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    name: obj.metadata?.name ?? '',
    uid: obj.metadata?.uid ?? '',
    scale,
    ...extra,
    metadata: metadataOf(obj),
  };
}
