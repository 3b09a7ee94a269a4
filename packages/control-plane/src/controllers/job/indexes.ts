/**
 * A Job's completion indexes as kube-controller-manager writes them in `status.completedIndexes`
 * and `status.failedIndexes`: sorted, merged ranges such as `1,3-5,7`.
 */
export type IndexIntervals = readonly (readonly [number, number])[];

/** Parses `1,3-5` into intervals, dropping what is malformed or not below `completions`. */
export function parseIndexes(text: string | undefined, completions: number): IndexIntervals {
  const set = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    if (!part) continue;
    const [first, last] = part.split('-');
    const from = Number(first);
    const to = last === undefined ? from : Number(last);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0) continue;
    for (let i = from; i <= Math.min(to, completions - 1); i++) set.add(i);
  }
  return toIntervals(set);
}

/** Merges a set of indexes into sorted intervals. */
export function toIntervals(indexes: Iterable<number>): IndexIntervals {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === i) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

/** The intervals with `indexes` added. */
export function withIndexes(intervals: IndexIntervals, indexes: Iterable<number>): IndexIntervals {
  return toIntervals([...expand(intervals), ...indexes]);
}

/** Every index the intervals hold, in order. */
export function expand(intervals: IndexIntervals): number[] {
  const out: number[] = [];
  for (const [from, to] of intervals) for (let i = from; i <= to; i++) out.push(i);
  return out;
}

/** How many indexes the intervals hold. */
export function countIndexes(intervals: IndexIntervals): number {
  return intervals.reduce((n, [from, to]) => n + to - from + 1, 0);
}

/** Whether `index` is in the intervals. */
export function hasIndex(intervals: IndexIntervals, index: number): boolean {
  return intervals.some(([from, to]) => index >= from && index <= to);
}

/** The status form: `0-2,4` (a pair of neighbours is written `3,4`, as upstream does). */
export function formatIndexes(intervals: IndexIntervals): string {
  return intervals
    .map(([from, to]) => (from === to ? `${from}` : to === from + 1 ? `${from},${to}` : `${from}-${to}`))
    .join(',');
}
