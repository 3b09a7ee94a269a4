import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.ts';
import { matchesFields, parseFieldSelector } from '../src/selectors/field-selector.ts';
import { matchesLabels, parseLabelSelector } from '../src/selectors/label-selector.ts';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/zone': 'a', n: '5' };
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['example.com/zone', true],
    ['!example.com/zone', false],
    ['!missing', true],
    ['missing!=x', true],
    ['app=web,tier=back', false],
    ['n>3', true],
    ['n<3', false],
    ['', true],
  ])('%s → %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('accepts an empty value', () => {
    expect(matchesLabels(parseLabelSelector('app='), { app: '' })).toBe(true);
  });

  it.each(['in (a)', 'a b', 'app in (x', 'Bad Key=1', 'a=b c'])('rejects %j with 400', (selector) => {
    try {
      parseLabelSelector(selector);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe(400);
    }
  });
});

describe('field selectors', () => {
  it('matches equality, inequality and escapes', () => {
    const fields = { 'metadata.name': 'a,b', 'spec.nodeName': 'n1' };
    expect(matchesFields(parseFieldSelector('metadata.name=a\\,b'), fields)).toBe(true);
    expect(matchesFields(parseFieldSelector('spec.nodeName!=n1'), fields)).toBe(false);
    expect(matchesFields(parseFieldSelector('spec.nodeName==n1,metadata.name!=x'), fields)).toBe(true);
    expect(() => parseFieldSelector('nonsense')).toThrow(ApiError);
  });
});
