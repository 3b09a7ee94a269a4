import { describe, expect, it } from 'vitest';
import {
  applySchemaDefaults,
  pruneUnknownFields,
  validateAgainstSchema,
} from '../src/validation/openapi-schema.ts';

const schema = {
  type: 'object',
  required: ['mode'],
  properties: {
    mode: { type: 'string', enum: ['Always', 'Never'] },
    count: { type: 'integer', minimum: 0, maximum: 10 },
    ratio: { type: 'number', exclusiveMinimum: true, minimum: 0 },
    name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
    size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    note: { type: 'string', nullable: true },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    policy: {
      type: 'object',
      properties: { timeout: { type: 'integer', default: 600 }, retries: { type: 'integer', default: 3 } },
    },
  },
};

const messages = (value: unknown) =>
  validateAgainstSchema(value, schema, 'spec').map((c) => `${c.field}: ${c.message}`);

describe('structural schema validation', () => {
  it('accepts a valid object', () => {
    expect(
      messages({
        mode: 'Always',
        count: 3,
        ratio: 0.5,
        name: 'abc',
        size: '10%',
        note: null,
        free: { any: { thing: 1 } },
        tags: ['a'],
        labels: { a: 'b' },
      }),
    ).toEqual([]);
  });

  it('reports every problem with kube-apiserver wording', () => {
    expect(
      messages({
        count: 11,
        ratio: 0,
        name: 'ABCDEFG',
        size: true,
        note: 5,
        tags: ['a', 'b', 'c'],
        labels: { a: 1 },
      }),
    ).toEqual([
      'spec.mode: Required value',
      'spec.count: Invalid value: 11: spec.count in body should be less than or equal to 10',
      'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
      'spec.name: Invalid value: "ABCDEFG": spec.name in body should match \'^[a-z]+$\'',
      'spec.name: Too long: may not be more than 5 bytes',
      'spec.size: Invalid value: "boolean": spec.size in body must be of type integer,string: "boolean"',
      'spec.note: Invalid value: "integer": spec.note in body must be of type string: "integer"',
      'spec.tags: Too many: 3: must have at most 2 items',
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
    ]);
    expect(messages({ mode: 'Sometimes', count: -1 })).toEqual([
      'spec.mode: Unsupported value: "Sometimes": supported values: "Always", "Never"',
      'spec.count: Invalid value: -1: spec.count in body should be greater than or equal to 0',
    ]);
  });

  it('rejects null where nullable is not set', () => {
    expect(messages({ mode: null })).toEqual([
      'spec.mode: Invalid value: "null": spec.mode in body must be of type string: "null"',
    ]);
  });
});

describe('pruning and defaults', () => {
  it('drops undeclared fields except under x-kubernetes-preserve-unknown-fields', () => {
    const value = {
      mode: 'Always',
      extra: 1,
      free: { kept: true },
      policy: { timeout: 5, junk: 'x' },
      labels: { a: 'b' },
    };
    expect(pruneUnknownFields(value, schema, 'spec')).toEqual(['spec.extra', 'spec.policy.junk']);
    expect(value).toEqual({
      mode: 'Always',
      free: { kept: true },
      policy: { timeout: 5 },
      labels: { a: 'b' },
    });
  });

  it('fills defaults inside objects that exist', () => {
    const withPolicy: any = { mode: 'Always', policy: { timeout: 5 } };
    applySchemaDefaults(withPolicy, schema);
    expect(withPolicy.policy).toEqual({ timeout: 5, retries: 3 });
    const without: any = { mode: 'Never' };
    applySchemaDefaults(without, schema);
    expect(without.policy).toBeUndefined();
  });
});
