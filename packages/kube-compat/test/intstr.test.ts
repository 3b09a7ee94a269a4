import { describe, expect, it } from 'vitest';
import { deprecatedIntPercentValue, goAtoi, goParseInt32, intPercentValue } from '../src/intstr.ts';

describe('IntOrString parsers', () => {
  it('reads integers as Go’s strconv.Atoi does, with its errors', () => {
    expect(goAtoi('+42')).toBe(42);
    expect(goAtoi('-7')).toBe(-7);
    expect(() => goAtoi('4.5')).toThrow('strconv.Atoi: parsing "4.5": invalid syntax');
    expect(() => goAtoi('')).toThrow('strconv.Atoi: parsing "": invalid syntax');
    expect(() => goAtoi('9223372036854775808')).toThrow(
      'strconv.Atoi: parsing "9223372036854775808": value out of range',
    );
  });

  it('reads int32s as Go’s strconv.ParseInt(text, 10, 32) does, with its errors', () => {
    expect(goParseInt32('+2147483647')).toBe(2147483647);
    expect(goParseInt32('-2147483648')).toBe(-2147483648);
    expect(goParseInt32('007')).toBe(7);
    expect(() => goParseInt32('2147483648')).toThrow(
      'strconv.ParseInt: parsing "2147483648": value out of range',
    );
    expect(() => goParseInt32(' 1')).toThrow('strconv.ParseInt: parsing " 1": invalid syntax');
    expect(() => goParseInt32('1_000')).toThrow('strconv.ParseInt: parsing "1_000": invalid syntax');
  });

  it('GetScaledValueFromIntOrPercent: percentages need their %', () => {
    expect(intPercentValue(3, 10, true)).toBe(3);
    expect(intPercentValue('25%', 10, true)).toBe(3);
    expect(intPercentValue('25%', 10, false)).toBe(2);
    expect(() => intPercentValue('25', 10, true)).toThrow(
      /^invalid value for IntOrString: invalid type: string is not a percentage$/,
    );
    expect(() => intPercentValue('x%', 10, true)).toThrow(
      'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
    );
  });

  it('the deprecated GetValueFromIntOrPercent: every string is a percentage, % or not', () => {
    expect(deprecatedIntPercentValue('50', 1, true)).toBe(1);
    expect(deprecatedIntPercentValue('0%', 1, true)).toBe(0);
    expect(deprecatedIntPercentValue('%5%', 10, false)).toBe(0);
    expect(() => deprecatedIntPercentValue('x', 1, true)).toThrow(
      'invalid value for IntOrString: invalid value "x": strconv.Atoi: parsing "x": invalid syntax',
    );
    expect(() => deprecatedIntPercentValue(null, 1, true)).toThrow('nil value for IntOrString');
  });
});
