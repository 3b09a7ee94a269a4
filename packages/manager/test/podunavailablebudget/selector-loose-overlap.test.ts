import type { LabelSelectorFields } from '@kruise/kube-compat';
import { describe, expect, it } from 'vitest';
import { selectorsLooselyOverlap } from '../../src/webhooks/selector-overlap.ts';

/**
 * Upstream's IsSelectorLooseOverlap, which PodUnavailableBudgets are checked with: the cases of
 * upstream's own table, then what sets it apart from the SidecarSets' test.
 */

const expr = (key: string, operator: string, values?: string[]): LabelSelectorFields => ({
  matchExpressions: [{ key, operator, values }],
});

describe('selector loose overlap (upstream’s IsSelectorLooseOverlap)', () => {
  it.each<[string, LabelSelectorFields, LabelSelectorFields, boolean]>([
    ['a in [b,c] and a exists', expr('a', 'In', ['b', 'c']), expr('a', 'Exists'), true],
    ['a in [b,c] and a in [b,e,f]', expr('a', 'In', ['b', 'c']), expr('a', 'In', ['b', 'e', 'f']), true],
    [
      'a in [b,c] and a notin [b,c,f]',
      expr('a', 'In', ['b', 'c']),
      expr('a', 'NotIn', ['b', 'c', 'f']),
      false,
    ],
    ['a in [b,c] and a doesnotexist', expr('a', 'In', ['b', 'c']), expr('a', 'DoesNotExist'), false],
    ['a notin [b,c] and a in [b]', expr('a', 'NotIn', ['b', 'c']), expr('a', 'In', ['b']), false],
    [
      'a notin [b,c] and a in [b,c,e]',
      expr('a', 'NotIn', ['b', 'c']),
      expr('a', 'In', ['b', 'c', 'e']),
      true,
    ],
    [
      'a doesnotexist and a notin [b,c,e]',
      expr('a', 'DoesNotExist'),
      expr('a', 'NotIn', ['b', 'c', 'e']),
      true,
    ],
    ['a in [b] and a in [c]', expr('a', 'In', ['b']), expr('a', 'In', ['c']), false],
    ['a exists and a doesnotexist', expr('a', 'Exists'), expr('a', 'DoesNotExist'), false],
    ['a notin [b] and a notin [c]', expr('a', 'NotIn', ['b']), expr('a', 'NotIn', ['c']), true],
    ['an unknown operator', expr('a', 'Maybe', ['b']), expr('a', 'Exists'), false],
  ])('%s: %s', (_name, a, b, want) => {
    expect(selectorsLooselyOverlap(a, b)).toBe(want);
    expect(selectorsLooselyOverlap(b, a)).toBe(want);
  });

  it('reads a matchLabel as `In [value]`, winning over an expression on its key', () => {
    expect(selectorsLooselyOverlap({ matchLabels: { a: 'b' } }, expr('a', 'In', ['b', 'c']))).toBe(true);
    expect(selectorsLooselyOverlap({ matchLabels: { a: 'b' } }, { matchLabels: { a: 'c' } })).toBe(false);
    const both = { matchLabels: { a: 'b' }, ...expr('a', 'In', ['c']) };
    expect(selectorsLooselyOverlap(both, { matchLabels: { a: 'b' } })).toBe(true);
  });

  it('needs the same keys on both sides, unlike the SidecarSets’ test; two empty selectors overlap', () => {
    expect(selectorsLooselyOverlap({ matchLabels: { a: 'b' } }, { matchLabels: { c: 'd' } })).toBe(false);
    expect(selectorsLooselyOverlap({ matchLabels: { a: 'b', c: 'd' } }, { matchLabels: { a: 'b' } })).toBe(
      false,
    );
    expect(selectorsLooselyOverlap({ matchLabels: { a: 'b' } }, {})).toBe(false);
    expect(selectorsLooselyOverlap({}, {})).toBe(true);
  });
});
