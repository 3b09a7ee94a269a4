import type { ResourceRef } from '@kruise/kube-compat';
import {
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  type ReconcileResult,
} from '@kruise/runtime';

/** What a finished object's `ttlSecondsAfterFinished` asks for now. */
export type TtlAfterFinished =
  | { action: 'delete' }
  | { action: 'requeue'; afterMs: number }
  | { action: 'nothing' };

/**
 * Whether a finished object (an ImagePullJob, ImageListPullJob or ContainerRecreateRequest) is due
 * for deletion at `nowMs` (the controller's injectable clock): `delete` once `ttlSeconds` have
 * passed since `completionTime`, `requeue` after the time left before that, `nothing` without a TTL.
 *
 * A `completionTime` that is missing or does not parse as a time is logged and treated as no TTL
 * (`nothing`): the object is kept until someone fixes or deletes it, never deleted at once and
 * never put back in the queue on a timer.
 */
export function ttlAfterFinished(
  completionTime: string | undefined,
  ttlSeconds: number | null | undefined,
  nowMs: number,
  log: Logger,
): TtlAfterFinished {
  if (ttlSeconds === undefined || ttlSeconds === null) return { action: 'nothing' };
  const completedMs = Date.parse(completionTime ?? '');
  if (Number.isNaN(completedMs)) {
    log.warn({ completion: completionTime ?? null }, 'completion time does not parse; ttl not applied');
    return { action: 'nothing' };
  }
  const leftMs = completedMs + ttlSeconds * 1000 - nowMs;
  return leftMs > 0 ? { action: 'requeue', afterMs: leftMs } : { action: 'delete' };
}

/**
 * Carries out `due` (from {@link ttlAfterFinished}) on `obj`: deletes it when due (an object gone
 * already is fine), or returns the requeue that looks again when it will be.
 */
export async function deleteAfterTtl(
  client: KubeClient,
  resource: ResourceRef,
  obj: KubeObject,
  due: TtlAfterFinished,
  log: Logger,
  deleteOptions?: Parameters<KubeClient['delete']>[3],
): Promise<ReconcileResult | undefined> {
  if (due.action === 'requeue') return { requeueAfterMs: due.afterMs };
  if (due.action === 'nothing') return undefined;
  await client
    .delete(resource, obj.metadata?.namespace, obj.metadata?.name ?? '', deleteOptions)
    .catch((err) => {
      if (!isNotFound(err)) throw err;
    });
  log.info({ kind: resource.kind }, 'deleted a finished object after its ttl');
  return undefined;
}
