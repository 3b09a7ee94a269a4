import type { Informer, KubeObject } from '@kruise/runtime';

/** How long a request waits for a cache's first list before it is refused. */
const SYNC_WAIT_MS = 10_000;

/**
 * The informer once it has listed (the webhook serves before the manager's caches sync).
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
