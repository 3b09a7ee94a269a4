import { describe, expect, it } from 'vitest';
import {
  inRange,
  parentAndOrdinal,
  replicaOrdinals,
  replicasRange,
  reservedOrdinals,
} from '../src/statefulset-ordinals.ts';

describe('StatefulSet ordinals', () => {
  it('reads the parent and ordinal of a pod name as upstream does', () => {
    expect(parentAndOrdinal('web-3')).toEqual({ parent: 'web', ordinal: 3 });
    expect(parentAndOrdinal('my-web-12')).toEqual({ parent: 'my-web', ordinal: 12 });
    expect(parentAndOrdinal('web')).toEqual({ parent: '', ordinal: -1 });
    expect(parentAndOrdinal('web-')).toEqual({ parent: '', ordinal: -1 });
    expect(parentAndOrdinal('web-99999999999').ordinal).toBe(-1);
  });

  it('takes reserved ordinals as integers and a-b ranges', () => {
    expect([...reservedOrdinals([1, '3-5', 9])].sort((a, b) => a - b)).toEqual([1, 3, 4, 5, 9]);
    expect([...reservedOrdinals(undefined)]).toEqual([]);
  });

  it('places replicas from the start ordinal, skipping reserved ones', () => {
    // reserving 1 of 3 replicas gives pods 0, 2, 3
    expect(replicaOrdinals(replicasRange(3, 0, new Set([1])))).toEqual([0, 2, 3]);
    // start 2, replicas 4, 3 reserved: 2, 4, 5, 6
    const range = replicasRange(4, 2, new Set([3]));
    expect(replicaOrdinals(range)).toEqual([2, 4, 5, 6]);
    expect(range.end).toBe(7);
    expect(inRange(3, range)).toBe(false);
    expect(inRange(1, range)).toBe(false);
    expect(inRange(6, range)).toBe(true);
    // scaled to 0: no replica, whatever is reserved
    expect(replicaOrdinals(replicasRange(0, 0, new Set([0, 1])))).toEqual([]);
  });
});
