import type { Pod } from 'kubernetes-types/core/v1.js';

/** How many pods one reconcile writes at once (an in-place update is two API writes per pod). */
export const POD_WRITES_AT_ONCE = 16;

/**
 * `fn` over every pod, a chunk of pods at a time, results in order. Upstream goes pod by pod; the
 * writes of different pods do not depend on each other, so a chunk goes out together. As in
 * upstream's loop, the first failure is thrown and nothing after its chunk is started.
 */
export async function inChunks<T>(pods: Pod[], fn: (pod: Pod) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < pods.length; i += POD_WRITES_AT_ONCE) {
    const results = await Promise.allSettled(pods.slice(i, i + POD_WRITES_AT_ONCE).map(fn));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    for (const r of results) if (r.status === 'fulfilled') out.push(r.value);
  }
  return out;
}
