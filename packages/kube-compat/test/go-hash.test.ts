import { describe, expect, it } from 'vitest';
import {
  deepHashJsonBytes,
  fnv1_32,
  fnv1a_32,
  goJsonString,
  goMarshal,
  safeEncodeString,
} from '../src/index.ts';

const bytes = (s: string) => Buffer.from(s);

describe('Go hashes', () => {
  it('FNV-1 and FNV-1a 32-bit match the reference vectors', () => {
    expect(fnv1_32(bytes(''))).toBe(0x811c9dc5);
    expect(fnv1_32(bytes('a'))).toBe(0x050c5d7e);
    expect(fnv1_32(bytes('foobar'))).toBe(0x31f0b262);
    expect(fnv1a_32(bytes('a'))).toBe(0xe40c292c);
    expect(fnv1a_32(bytes('foobar'))).toBe(0xbf9cf968);
  });

  it("hashes JSON bytes as DeepHashObject does (upstream's volumeClaimTemplates vectors)", () => {
    expect(deepHashJsonBytes('null')).toBe(86995377);
    expect(
      deepHashJsonBytes(
        '[{"metadata":{"name":"pvc-1","creationTimestamp":null},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"limits":{"storage":"2Gi"},"requests":{"storage":"1Gi"}}},"status":{}}]',
      ),
    ).toBe(1129974074);
  });

  it('safe-encodes into consonants and digits', () => {
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });

  it('writes JSON as Go does: HTML characters escaped, keys sorted on request', () => {
    expect(goJsonString('<a&b>\u2028')).toBe('"\\u003ca\\u0026b\\u003e\\u2028"');
    expect(goMarshal({ b: 1, a: [true, null], c: undefined }, true)).toBe('{"a":[true,null],"b":1}');
    expect(goMarshal({ b: 1, a: 2 })).toBe('{"b":1,"a":2}');
  });
});
