/**
 * How long a wait lasts by default: generous, so that a loaded 2-core machine does not miss a
 * condition (a wait ends as soon as its condition holds; the bound only matters on failure).
 */
export const WAIT_MS = 20_000;

/** How a wait polls, and what it says when it gives up. */
export interface Wait {
  /** Gives up after this long (default WAIT_MS). */
  timeoutMs?: number;
  /** Looks again after this long (default 25 ms). */
  intervalMs?: number;
  /** What is awaited, named in the timeout error ("pod web-0 Running"). */
  what?: string;
}

/**
 * Polls `check` until it returns a truthy value, which it resolves with. A throw counts as "not
 * yet"; past the timeout it rejects, naming what was awaited (`what`, else the check's source) and
 * the last error seen. `wait` is the timeout in ms (then `intervalMs`), or a `Wait`.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  wait: number | Wait = {},
  intervalMs?: number,
): Promise<NonNullable<T>> {
  const w: Wait = typeof wait === 'number' ? { timeoutMs: wait, intervalMs } : wait;
  const timeoutMs = w.timeoutMs ?? WAIT_MS;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const what = w.what ?? sourceOf(check);
      const cause = last ? `; last error: ${(last as Error)?.message ?? String(last)}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((r) => setTimeout(r, w.intervalMs ?? 25));
  }
}

/** A function's source on one line, cut at 200 characters (what a wait on it is waiting for). */
export const sourceOf = (fn: (...args: never[]) => unknown): string =>
  `\`${String(fn).replace(/\s+/g, ' ').slice(0, 200)}\``;

/**
 * `eventually` with the defaults of the tests on the containerd stack (pods, processes, the
 * runtime): 30 s, every 100 ms.
 */
export function until<T>(check: () => T | Promise<T>, wait: number | Wait = {}): Promise<NonNullable<T>> {
  const w: Wait = typeof wait === 'number' ? { timeoutMs: wait } : wait;
  return eventually(check, { ...w, timeoutMs: w.timeoutMs ?? 30_000, intervalMs: w.intervalMs ?? 100 });
}
