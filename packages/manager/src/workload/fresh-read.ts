import type { ResourceRef } from '@kruise/kube-compat';
import { type KubeClient, type KubeObject, unlessNotFound } from '@kruise/runtime';

/**
 * A fresh read of a workload from the API, not the cache (what a controller checks before it adopts
 * an orphan: the same object, not being deleted); undefined once it is gone.
 */
export function freshRead<T>(
  client: KubeClient,
  resource: ResourceRef,
): (obj: { metadata?: { namespace?: string; name?: string } }) => Promise<T | undefined> {
  return (obj) =>
    unlessNotFound(client.get<T & KubeObject>(resource, obj.metadata?.namespace, obj.metadata?.name ?? ''));
}
