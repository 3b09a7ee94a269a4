/**
 * The integer value of an image-pull job's `parallelism` (IntOrString; percentages are refused by
 * the webhook): 1 when unset, 0 when it does not parse. Read by the ImagePullJob controller.
 */
export function parallelismValue(parallelism: unknown): number {
  if (parallelism === undefined || parallelism === null) return 1;
  const n = typeof parallelism === 'number' ? parallelism : Number.parseInt(String(parallelism), 10);
  return Number.isFinite(n) ? n : 0;
}
