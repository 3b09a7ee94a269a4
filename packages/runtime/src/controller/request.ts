import { objectKey, splitKey } from '../informer/indexer.ts';

/** What a reconcile is asked to look at: one object by namespace (empty when cluster-scoped) and name. */
export interface Request {
  namespace: string;
  name: string;
}

/** The request for an object. */
export function requestFor(obj: { metadata?: { namespace?: string; name?: string } }): Request {
  return { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
}

/** The work-queue (and cache) key of a request: `namespace/name`, or `name` when cluster-scoped. */
export function requestKey(req: Request): string {
  return objectKey({ metadata: req });
}

/** The request a work-queue key stands for. */
export function requestOfKey(key: string): Request {
  return splitKey(key);
}
