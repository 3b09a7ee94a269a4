import type { Informer, KubeObject } from '@kruise/runtime';

/** How long a read waits for a cache's first list before it fails. */
export const SYNC_WAIT_MS = 10_000;

/**
 * Resolves once the informer has listed (webhooks serve, and shared libraries are called, before
 * the manager's caches sync): a cache that has not listed yet would answer "not found".
 * @throws Error `caches not synced` when it has not listed within `waitMs`.
 */
export async function synced<T extends KubeObject>(
  informer: Pick<Informer<T>, 'hasSynced' | 'waitForSync'>,
  waitMs = SYNC_WAIT_MS,
): Promise<void> {
  if (informer.hasSynced()) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('caches not synced')), waitMs);
  });
  try {
    await Promise.race([informer.waitForSync(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
