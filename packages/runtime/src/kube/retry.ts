import { isConflict } from './errors.ts';

/** client-go's DefaultRetry: 5 steps, 10 ms apart with 10 % jitter. */
export const DEFAULT_RETRY = { steps: 5, delayMs: 10, jitter: 0.1 };

/**
 * Runs `fn` again while it fails with a resourceVersion conflict (read, modify, write loops),
 * up to `steps` attempts; any other error, or the last conflict, is thrown.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, retry = DEFAULT_RETRY): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isConflict(err) || attempt >= retry.steps) throw err;
      await new Promise((r) => setTimeout(r, retry.delayMs * (1 + Math.random() * retry.jitter)));
    }
  }
}
