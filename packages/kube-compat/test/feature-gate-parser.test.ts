import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { featureGateFlagPattern, parseFeatureGateFlag } from '../src/index.ts';

const defaults = { A: true, B: false };

describe('parseFeatureGateFlag', () => {
  it('sets the named gates over the defaults and leaves the others', () => {
    expect(parseFeatureGateFlag(undefined, defaults)).toEqual({ A: true, B: false });
    expect(parseFeatureGateFlag(' B = true ,', defaults)).toEqual({ A: true, B: true });
    expect(parseFeatureGateFlag('A=false,B=true,A=true', defaults)).toEqual({ A: true, B: true });
    expect(parseFeatureGateFlag(',,A=false,', defaults)).toEqual({ A: false, B: false });
    expect(defaults).toEqual({ A: true, B: false });
  });

  it('reads every spelling of strconv.ParseBool', () => {
    for (const on of ['1', 't', 'T', 'TRUE', 'true', 'True'])
      expect(parseFeatureGateFlag(`B=${on}`, defaults).B, on).toBe(true);
    for (const off of ['0', 'f', 'F', 'FALSE', 'false', 'False'])
      expect(parseFeatureGateFlag(`A=${off}`, defaults).A, off).toBe(false);
  });

  it('refuses a gate it does not know and a value that is not a boolean, in component-base’s words', () => {
    expect(() => parseFeatureGateFlag('C=true', defaults)).toThrow('unrecognized feature gate: C');
    expect(() => parseFeatureGateFlag('toString=true', defaults)).toThrow(
      'unrecognized feature gate: toString',
    );
    expect(() => parseFeatureGateFlag('A=yes', defaults)).toThrow(
      'invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(() => parseFeatureGateFlag('A', defaults)).toThrow('missing bool value for A');
    expect(() => parseFeatureGateFlag('A=', defaults)).toThrow(
      'invalid value of A=, err: strconv.ParseBool: parsing "": invalid syntax',
    );
    expect(() => parseFeatureGateFlag('A=true, ', defaults)).toThrow('missing bool value for ');
    // every value is read before any name is looked up, as Set reads the list before SetFromMap
    expect(() => parseFeatureGateFlag('C=true,A=yes', defaults)).toThrow('invalid value of A=yes');
  });
});

describe('featureGateFlagPattern', () => {
  const pattern = new RegExp(featureGateFlagPattern(Object.keys(defaults)));
  const accepts = (text: string) => {
    try {
      parseFeatureGateFlag(text, defaults);
      return true;
    } catch {
      return false;
    }
  };

  it('matches exactly the values the parser accepts', () => {
    const samples = [
      '',
      'A=true',
      'A=True,B=0',
      ' A = t , B=F ,',
      ',,',
      'A=true, ',
      'A',
      'A=yes',
      'C=true',
      'A=true=false',
      'A=true;B=false',
      'AB=true',
      '\u00a0A=1\u3000',
    ];
    expect(samples.map((s) => [s, pattern.test(s)])).toEqual(samples.map((s) => [s, accepts(s)]));
    const piece = fc.constantFrom('A', 'B', 'C', '=', ',', ' ', '\t', 'true', 'True', '1', 'f', 'yes', '');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(pattern.test(text), JSON.stringify(text)).toBe(accepts(text));
      }),
      { numRuns: 2000 },
    );
  });
});
