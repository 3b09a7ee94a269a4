import { describe, expect, it } from 'vitest';
import { parallelismValue } from '../src/index.ts';

describe('parallelismValue', () => {
  it('reads an IntOrString parallelism as the ImagePullJob controller needs it', () => {
    expect(parallelismValue(undefined)).toBe(1);
    expect(parallelismValue(null)).toBe(1);
    expect(parallelismValue(4)).toBe(4);
    expect(parallelismValue('7')).toBe(7);
    expect(parallelismValue(0)).toBe(0);
    expect(parallelismValue('many')).toBe(0);
  });
});
