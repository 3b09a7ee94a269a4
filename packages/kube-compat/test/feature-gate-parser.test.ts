import { describe, expect, it } from 'vitest';
import { parseFeatureGateFlag } from '../src/index.ts';

const defaults = { A: true, B: false };

describe('parseFeatureGateFlag', () => {
  it('sets the named gates over the defaults and leaves the others', () => {
    expect(parseFeatureGateFlag(undefined, defaults)).toEqual({ A: true, B: false });
    expect(parseFeatureGateFlag(' B = true , ', defaults)).toEqual({ A: true, B: true });
    expect(parseFeatureGateFlag('A=false,B=true,A=true', defaults)).toEqual({ A: true, B: true });
    expect(defaults).toEqual({ A: true, B: false });
  });

  it('refuses a gate it does not know and a value that is not a boolean, in Go’s words', () => {
    expect(() => parseFeatureGateFlag('C=true', defaults)).toThrow('unrecognized feature gate: C');
    expect(() => parseFeatureGateFlag('toString=true', defaults)).toThrow(
      'unrecognized feature gate: toString',
    );
    expect(() => parseFeatureGateFlag('A=yes', defaults)).toThrow(
      'invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(() => parseFeatureGateFlag('A', defaults)).toThrow('missing bool value for A');
    expect(() => parseFeatureGateFlag('A=', defaults)).toThrow('invalid value of A=, err');
  });
});
