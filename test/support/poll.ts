/**
 * Polls `check` every `intervalMs` until it returns a truthy value, which it resolves with. A throw
 * counts as "not yet"; past `timeoutMs` it rejects, naming the last error seen.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5000,
  intervalMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
