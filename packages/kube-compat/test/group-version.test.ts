import { describe, expect, it } from 'vitest';
import { parseGroupVersion } from '../src/resource-ref.ts';

describe('parseGroupVersion', () => {
  it('reads the core group, a named group, and the empty forms as apimachinery does', () => {
    expect(parseGroupVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(parseGroupVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
    expect(parseGroupVersion('')).toEqual({ group: '', version: '' });
    expect(parseGroupVersion('/')).toEqual({ group: '', version: '' });
    expect(parseGroupVersion('apps/')).toEqual({ group: 'apps', version: '' });
  });

  it('refuses more than one slash in its words', () => {
    expect(() => parseGroupVersion('a/b/c')).toThrow(/^unexpected GroupVersion string: a\/b\/c$/);
    expect(() => parseGroupVersion('//')).toThrow('unexpected GroupVersion string: //');
  });
});
