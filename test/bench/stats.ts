/** The q-quantile (0..1) of numbers, by nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median. */
export const median = (values: number[]) => quantile(values, 0.5);

/** Formats a number with a fixed count of decimals. */
export const fmt = (n: number, digits = 1) => n.toFixed(digits);
