import type { StatusCause } from '../errors.ts';
import { deepEqual } from '../util/deep-equal.ts';

/** A structural OpenAPI v3 schema (the subset CRDs use). */
export type Schema = Record<string, any>;

const isObject = (v: unknown): v is Record<string, any> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The type names a schema accepts, as kube-apiserver lists them in messages. */
function expectedTypes(schema: Schema): string | undefined {
  if (schema['x-kubernetes-int-or-string']) return 'integer,string';
  if (schema.type) return schema.type;
  const alternatives = (schema.anyOf ?? []).map((s: Schema) => s.type).filter(Boolean);
  return alternatives.length ? alternatives.join(',') : undefined;
}

function matchesType(v: unknown, schema: Schema): boolean {
  if (schema['x-kubernetes-int-or-string']) {
    return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  }
  if (!schema.type && Array.isArray(schema.anyOf) && schema.anyOf.some((s: Schema) => s.type)) {
    return schema.anyOf.some((s: Schema) => matchesType(v, s));
  }
  switch (schema.type) {
    case undefined:
      return true;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    default:
      return typeof v === schema.type;
  }
}

const fmt = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v));

/**
 * Validates `value` against a structural schema the way kube-apiserver reports it:
 * every problem becomes a cause with the field path and kube-apiserver's wording.
 */
export function validateAgainstSchema(
  value: unknown,
  schema: Schema,
  path: string,
  causes: StatusCause[] = [],
): StatusCause[] {
  if (value === null) {
    if (!schema.nullable && !schema['x-kubernetes-preserve-unknown-fields']) {
      const expected = expectedTypes(schema);
      if (expected) {
        causes.push({
          reason: 'FieldValueTypeInvalid',
          field: path,
          message: `Invalid value: "null": ${path} in body must be of type ${expected}: "null"`,
        });
      }
    }
    return causes;
  }
  if (!matchesType(value, schema)) {
    const expected = expectedTypes(schema);
    causes.push({
      reason: 'FieldValueTypeInvalid',
      field: path,
      message: `Invalid value: "${typeName(value)}": ${path} in body must be of type ${expected}: "${typeName(value)}"`,
    });
    return causes;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => deepEqual(e, value))) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: path,
      message: `Unsupported value: ${fmt(value)}: supported values: ${schema.enum.map(fmt).join(', ')}`,
    });
  }
  if (typeof value === 'number') {
    if (
      typeof schema.minimum === 'number' &&
      (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)
    ) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value}: ${path} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
      });
    }
    if (
      typeof schema.maximum === 'number' &&
      (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)
    ) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value}: ${path} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`,
      });
    }
  }
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${fmt(value)}: ${path} in body should match '${schema.pattern}'`,
      });
    }
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) {
      causes.push({
        reason: 'FieldValueTooLong',
        field: path,
        message: `Too long: may not be more than ${schema.maxLength} bytes`,
      });
    }
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${fmt(value)}: ${path} in body should be at least ${schema.minLength} chars long`,
      });
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      causes.push({
        reason: 'FieldValueTooMany',
        field: path,
        message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
      });
    }
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value.length}: ${path} in body should have at least ${schema.minItems} items`,
      });
    }
    if (schema.items)
      for (const [i, item] of value.entries())
        validateAgainstSchema(item, schema.items, `${path}[${i}]`, causes);
  }
  if (isObject(value)) {
    for (const required of schema.required ?? []) {
      if (!(required in value))
        causes.push({
          reason: 'FieldValueRequired',
          field: path ? `${path}.${required}` : required,
          message: 'Required value',
        });
    }
    for (const [key, child] of Object.entries(value)) {
      const sub =
        schema.properties?.[key] ??
        (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (sub) validateAgainstSchema(child, sub, path ? `${path}.${key}` : key, causes);
    }
  }
  return causes;
}

/**
 * Removes fields the schema does not declare (kube-apiserver's pruning) and returns their paths.
 * `x-kubernetes-preserve-unknown-fields` keeps a subtree as it is. Mutates `value`.
 */
export function pruneUnknownFields(
  value: unknown,
  schema: Schema,
  path: string,
  pruned: string[] = [],
): string[] {
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return pruned;
  if (Array.isArray(value) && schema.items) {
    for (const [i, item] of value.entries()) pruneUnknownFields(item, schema.items, `${path}[${i}]`, pruned);
  } else if (
    isObject(value) &&
    (schema.type === 'object' || schema.properties || schema.additionalProperties)
  ) {
    for (const key of Object.keys(value)) {
      const childPath = path ? `${path}.${key}` : key;
      const sub =
        schema.properties?.[key] ??
        (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (sub) pruneUnknownFields(value[key], sub, childPath, pruned);
      else if (!schema['x-kubernetes-preserve-unknown-fields'] && schema.additionalProperties !== true) {
        delete value[key];
        pruned.push(childPath);
      }
    }
  }
  return pruned;
}

/** Fills `default`s of absent properties inside objects that exist. Mutates `value`. */
export function applySchemaDefaults(value: unknown, schema: Schema): void {
  if (Array.isArray(value) && schema.items) {
    for (const item of value) applySchemaDefaults(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, sub] of Object.entries(schema.properties ?? {}) as [string, Schema][]) {
    if (!(key in value) && sub.default !== undefined) value[key] = structuredClone(sub.default);
    if (key in value) applySchemaDefaults(value[key], sub);
  }
  if (isObject(schema.additionalProperties)) {
    for (const key of Object.keys(value)) {
      if (!schema.properties?.[key]) applySchemaDefaults(value[key], schema.additionalProperties);
    }
  }
}
