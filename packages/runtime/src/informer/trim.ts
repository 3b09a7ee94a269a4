import type { KubeObject } from '../kube/client.ts';

/**
 * A cache trim: the object without `metadata.managedFields`, server-side apply's bookkeeping,
 * which no controller reads and which makes up much of a small object. A write from a trimmed
 * copy sends no managedFields, and the API server then keeps the stored ones (as kube-apiserver).
 */
export function withoutManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
