import { describe, expect, it } from 'vitest';
import { labelSelectorMatches, labelSelectorString } from '../src/label-selector.ts';
import {
  LabelSelectorSyntaxError,
  parseLabelRequirements,
  parseToLabelSelector,
} from '../src/label-selector-parse.ts';

describe('parseToLabelSelector (metav1.ParseToLabelSelector)', () => {
  it('puts equalities into matchLabels and the rest into matchExpressions', () => {
    expect(
      parseToLabelSelector('app=web,tier in (b, a, b),env!=dev,zone notin (x),gpu,!spot,role==db'),
    ).toEqual({
      matchLabels: { app: 'web', role: 'db' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'zone', operator: 'NotIn', values: ['x'] },
        { key: 'gpu', operator: 'Exists' },
        { key: 'spot', operator: 'DoesNotExist' },
      ],
    });
  });

  it('gives an empty selector for an empty string, which selects every pod', () => {
    const selector = parseToLabelSelector('');
    expect(selector).toEqual({ matchLabels: {}, matchExpressions: [] });
    expect(labelSelectorMatches(selector, { anything: 'x' })).toBe(true);
  });

  it('reads back what a scale subresource prints (labelSelectorString)', () => {
    const original = {
      matchLabels: { app: 'web', 'example.com/team': 'a' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['back', 'front'] },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    };
    const parsed = parseToLabelSelector(labelSelectorString(original));
    const cases: Record<string, string>[] = [
      { app: 'web', 'example.com/team': 'a', tier: 'front' },
      { app: 'web', 'example.com/team': 'a', tier: 'front', canary: 'y' },
      { app: 'web', 'example.com/team': 'b', tier: 'back' },
      { app: 'web', 'example.com/team': 'a', tier: 'side' },
    ];
    for (const labels of cases)
      expect(labelSelectorMatches(parsed, labels)).toBe(labelSelectorMatches(original, labels));
  });

  it('refuses > and < as upstream does', () => {
    expect(() => parseToLabelSelector('n>3')).toThrow(`"gt" isn't supported in label selectors`);
    expect(() => parseToLabelSelector('n<3')).toThrow(`"lt" isn't supported in label selectors`);
  });

  it('refuses a string that does not parse, quoting it', () => {
    expect(() => parseToLabelSelector('app in (x')).toThrow(LabelSelectorSyntaxError);
    expect(() => parseToLabelSelector('Bad Key=1')).toThrow(
      /^couldn't parse the selector string "Bad Key=1": unable to parse requirement/,
    );
  });
});

describe('parseLabelRequirements', () => {
  it('keeps the operators of the string', () => {
    expect(
      parseLabelRequirements('a=1,b!=2,c in (x),d notin (y),e,!f,g>3,h<4').map((r) => r.operator),
    ).toEqual(['=', '!=', 'in', 'notin', 'exists', '!', 'gt', 'lt']);
    expect(parseLabelRequirements(undefined)).toEqual([]);
  });

  it('rejects values that are no label values', () => {
    expect(() => parseLabelRequirements('a=-x')).toThrow(/Invalid value: "-x"/);
    expect(() => parseLabelRequirements('n>x')).toThrow(/must be an integer/);
  });
});
