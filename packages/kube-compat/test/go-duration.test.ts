import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatGoDuration,
  formatGoDurationMs,
  parseGoBool,
  parseGoDuration,
  parseGoDurationMs,
} from '../src/index.ts';

const S = 1_000_000_000n;
const MIN = 60n * S;
const H = 60n * MIN;
const MAX = (1n << 63n) - 1n;

describe('parseGoDuration', () => {
  it('reads what time.ParseDuration reads, to the nanosecond (Go’s own table)', () => {
    const cases: [string, bigint][] = [
      ['0', 0n],
      ['5s', 5n * S],
      ['1478s', 1478n * S],
      ['-5s', -5n * S],
      ['+5s', 5n * S],
      ['-0', 0n],
      ['+0', 0n],
      ['5.0s', 5n * S],
      ['5.6s', 5_600_000_000n],
      ['5.s', 5n * S],
      ['.5s', 500_000_000n],
      ['1.004s', 1_004_000_000n],
      ['100.00100s', 100_001_000_000n],
      ['10ns', 10n],
      ['11us', 11_000n],
      ['12µs', 12_000n],
      ['12μs', 12_000n],
      ['13ms', 13_000_000n],
      ['15m', 15n * MIN],
      ['16h', 16n * H],
      ['3h30m', 3n * H + 30n * MIN],
      ['10.5s4m', 4n * MIN + 10_500_000_000n],
      ['-2m3.4s', -(2n * MIN + 3_400_000_000n)],
      ['1h2m3s4ms5us6ns', H + 2n * MIN + 3n * S + 4_005_006n],
      ['39h9m14.425s', 39n * H + 9n * MIN + 14_425_000_000n],
      ['52763797000ns', 52_763_797_000n],
      ['0.3333333333333333333h', 20n * MIN],
      ['9007199254740993ns', 9_007_199_254_740_993n],
      ['9223372036854775807ns', MAX],
      ['9223372036854775.807us', MAX],
      ['9223372036s854ms775us807ns', MAX],
      ['-9223372036854775808ns', -(MAX + 1n)],
      ['-9223372036854775.808us', -(MAX + 1n)],
      ['-2562047h47m16.854775808s', -(MAX + 1n)],
      ['0.100000000000000000000h', 6n * MIN],
      ['0.830103483285477580700h', 49n * MIN + 48n * S + 372_539_827n],
    ];
    expect(cases.map(([text]) => [text, parseGoDuration(text)])).toEqual(cases);
  });

  it('refuses what time.ParseDuration refuses, in its words', () => {
    const invalid = [
      '',
      '-',
      's',
      '.',
      '-.',
      '.s',
      '+.s',
      ' 1s',
      '9223372036854775810ns',
      '9223372036854775808ns',
      '-9223372036854775809ns',
      '9223372036854776us',
      '3000000h',
      '9223372036854775.808us',
      '9223372036854ms775us808ns',
    ];
    for (const text of invalid)
      expect(() => parseGoDuration(text), text).toThrow(`time: invalid duration ${JSON.stringify(text)}`);
    expect(() => parseGoDuration('300000')).toThrow('time: missing unit in duration "300000"');
    expect(() => parseGoDuration('3')).toThrow('time: missing unit in duration "3"');
    expect(() => parseGoDuration('1d')).toThrow('time: unknown unit "d" in duration "1d"');
    expect(() => parseGoDuration('1.5 s')).toThrow('time: unknown unit " s" in duration "1.5 s"');
  });
});

describe('formatGoDuration', () => {
  it('writes what Duration.String() writes', () => {
    const cases: [bigint, string][] = [
      [0n, '0s'],
      [1n, '1ns'],
      [1100n, '1.1µs'],
      [2_200_000n, '2.2ms'],
      [500_000_000n, '500ms'],
      [3_300_000_000n, '3.3s'],
      [30n * S, '30s'],
      [2n * MIN, '2m0s'],
      [4n * MIN + 5n * S, '4m5s'],
      [4n * MIN + 5_001_000_000n, '4m5.001s'],
      [5n * H + 6n * MIN + 7_001_000_000n, '5h6m7.001s'],
      [8n * MIN + 1n, '8m0.000000001s'],
      [H + 30n * MIN, '1h30m0s'],
      [MAX, '2562047h47m16.854775807s'],
      [-(MAX + 1n), '-2562047h47m16.854775808s'],
    ];
    expect(cases.map(([ns]) => [ns, formatGoDuration(ns)])).toEqual(cases);
  });

  it('is read back to the same duration', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(MAX + 1n), max: MAX }), (ns) => {
        expect(parseGoDuration(formatGoDuration(ns))).toBe(ns);
      }),
    );
  });

  it('in milliseconds: the defaults programs print and read', () => {
    expect([300_000, 30_000, 5_400_000, 10_000, 120_000, 500, 0, 1.5].map(formatGoDurationMs)).toEqual([
      '5m0s',
      '30s',
      '1h30m0s',
      '10s',
      '2m0s',
      '500ms',
      '0s',
      '1.5ms',
    ]);
    expect(['5m0s', '1h30m', '1500us', '0'].map(parseGoDurationMs)).toEqual([300_000, 5_400_000, 1.5, 0]);
  });
});

describe('parseGoBool', () => {
  it('reads strconv.ParseBool’s spellings and refuses others in its words', () => {
    expect(['1', 't', 'T', 'TRUE', 'true', 'True'].map(parseGoBool)).toEqual(Array(6).fill(true));
    expect(['0', 'f', 'F', 'FALSE', 'false', 'False'].map(parseGoBool)).toEqual(Array(6).fill(false));
    for (const text of ['yes', 'tRUE', '', ' true', 'on'])
      expect(() => parseGoBool(text)).toThrow(
        `strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`,
      );
  });
});
