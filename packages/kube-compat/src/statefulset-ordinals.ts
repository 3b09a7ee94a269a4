/**
 * Ordinals of stateful workloads as Kubernetes' StatefulSet and OpenKruise's Advanced StatefulSet
 * use them (one implementation for both): a pod named `<set>-<n>` has ordinal n; the set's replicas
 * occupy the first `replicas` ordinals from its start ordinal that are not reserved.
 */

/** A pod's parent name and ordinal from its name (`web-3` → web, 3); ordinal -1 when it has none. */
export function parentAndOrdinal(podName: string): { parent: string; ordinal: number } {
  const m = /^(.*)-([0-9]+)$/.exec(podName);
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  // Go's ParseInt(…, 10, 32): out of int32 range is no ordinal
  return { parent: m[1]!, ordinal: n <= 2 ** 31 - 1 ? n : -1 };
}

/** A pod's ordinal from its name, -1 when it has none. */
export const ordinalOf = (podName: string) => parentAndOrdinal(podName).ordinal;

/**
 * The ordinals `reserveOrdinals` names: integers, and strings that are an integer or a range `a-b`
 * (both ends included). Entries that are neither (the webhook refuses them) and negative numbers are
 * ignored, as upstream's parser skips them.
 */
export function reservedOrdinals(reserve: (number | string)[] | undefined): Set<number> {
  const out = new Set<number>();
  for (const item of reserve ?? []) {
    if (typeof item === 'number') {
      if (Number.isInteger(item) && item >= 0) out.add(item);
      continue;
    }
    const single = /^\s*(\d+)\s*$/.exec(item);
    if (single) {
      out.add(Number(single[1]));
      continue;
    }
    const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(item);
    if (!range) continue;
    const from = Number(range[1]);
    const to = Number(range[2]);
    for (let n = from; n <= to; n++) out.add(n);
  }
  return out;
}

/** Where a set's replicas live: ordinals in [start, end) that are not reserved. */
export interface OrdinalRange {
  start: number;
  /** One past the highest ordinal a replica may have. */
  end: number;
  reserved: Set<number>;
}

/**
 * The ordinal range of `replicas` pods from `start`, skipping reserved ordinals (upstream's
 * getStatefulSetReplicasRange): with replicas 4, start 2 and 3 reserved, pods 2, 4, 5, 6.
 */
export function replicasRange(replicas: number, start: number, reserved: Set<number>): OrdinalRange {
  let end = start;
  for (let counted = 0; counted < replicas; end++) if (!reserved.has(end)) counted++;
  return { start, end, reserved };
}

/** Whether an ordinal belongs to a replica of the range. */
export function inRange(ordinal: number, range: OrdinalRange): boolean {
  return ordinal >= range.start && ordinal < range.end && !range.reserved.has(ordinal);
}

/** The ordinals of the range's replicas, ascending. */
export function replicaOrdinals(range: OrdinalRange): number[] {
  const out: number[] = [];
  for (let n = range.start; n < range.end; n++) if (!range.reserved.has(n)) out.push(n);
  return out;
}
