/** The first batch of a slow start (kube-controller-manager's SlowStartInitialBatchSize). */
export const SLOW_START_INITIAL_BATCH = 1;

/**
 * kube-controller-manager's slowStartBatch: runs `count` calls of `fn` in batches of 1, 2, 4, …
 * (each batch at once), stopping after the first batch where any call failed, so that a
 * failing create (quota, webhook) is not attempted hundreds of times. Resolves with the
 * successes, the calls made and the first error.
 */
export async function slowStartBatch(
  count: number,
  fn: () => Promise<void>,
  initialBatch = SLOW_START_INITIAL_BATCH,
): Promise<{ successes: number; attempted: number; error?: Error }> {
  let remaining = count;
  let successes = 0;
  let attempted = 0;
  for (let batch = Math.min(remaining, initialBatch); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failed.length;
    attempted += batch;
    if (failed.length) return { successes, attempted, error: failed[0]!.reason as Error };
    remaining -= batch;
  }
  return { successes, attempted };
}
