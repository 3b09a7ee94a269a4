/**
 * Runs `fn` `count` times in batches of 1, 2, 4 … (upstream's DoItSlowly), stopping after the
 * first batch with a failure; returns the successes and the first error.
 */
export async function doItSlowly(
  count: number,
  fn: (i: number) => Promise<void>,
): Promise<{ successes: number; error?: unknown }> {
  let done = 0;
  let successes = 0;
  for (let size = Math.min(count, 1); size > 0; size = Math.min(2 * size, count - done)) {
    const results = await Promise.allSettled(Array.from({ length: size }, (_, i) => fn(done + i)));
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    successes += results.filter((r) => r.status === 'fulfilled').length;
    if (failed) return { successes, error: failed.reason };
    done += size;
  }
  return { successes };
}
