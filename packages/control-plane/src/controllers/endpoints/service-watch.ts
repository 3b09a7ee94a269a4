import type { ChangeEvent, Store } from '../../store/store.ts';
import type { SyncQueue } from '../sync-queue.ts';
import { servicesSelecting } from './service-pods.ts';

/** `namespace/name` of a Service, the key both endpoint controllers sync. */
export const serviceKey = (namespace: string, name: string) => `${namespace}/${name}`;

/** Splits a Service key. */
export function splitServiceKey(key: string): [string, string] {
  const at = key.indexOf('/');
  return [key.slice(0, at), key.slice(at + 1)];
}

/**
 * Feeds a Service-keyed queue: a Service that changes or goes, and every Service whose selector
 * picks a pod that changes (by its labels before or after the change).
 */
export function markServicesOf(store: Store, e: ChangeEvent, queue: SyncQueue): void {
  if (e.resource === '/services') queue.mark(serviceKey(e.namespace, e.obj.metadata?.name));
  else if (e.resource === '/pods') {
    const labels = [e.obj.metadata?.labels, e.prev?.metadata?.labels];
    for (const name of servicesSelecting(store, e.namespace, labels))
      queue.mark(serviceKey(e.namespace, name));
  }
}

/** Marks every Service in the store (a controller's first sync). */
export function markAllServices(store: Store, queue: SyncQueue): void {
  for (const { obj } of store.list('/services'))
    queue.mark(serviceKey(obj.metadata?.namespace, obj.metadata?.name));
}
