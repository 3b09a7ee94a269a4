import { canonicalQuantity } from '../quantity.ts';
import { GO_STRUCTS } from './go-types.ts';

interface Field {
  json: string;
  type: string;
  omitEmpty: boolean;
}

const parsed = new Map<string, Field[]>();

/** The fields of a Go struct in declaration order, inlined structs flattened. */
function fieldsOf(struct: string): Field[] {
  let fields = parsed.get(struct);
  if (fields) return fields;
  const spec = GO_STRUCTS[struct];
  if (spec === undefined) throw new Error(`no Go struct ${struct}`);
  fields = [];
  for (const token of spec.split(' ').filter(Boolean)) {
    if (token.startsWith('...')) {
      fields.push(...fieldsOf(token.slice(3)));
      continue;
    }
    const at = token.indexOf(':');
    const omitEmpty = !token.endsWith('!');
    fields.push({
      json: token.slice(0, at),
      type: token.slice(at + 1, omitEmpty ? undefined : -1),
      omitEmpty,
    });
  }
  parsed.set(struct, fields);
  return fields;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A Go value's JSON after decoding `value` into `type` (undefined = Go's nil). */
function decode(value: unknown, type: string): unknown {
  if (type.startsWith('*'))
    return value === null || value === undefined ? undefined : decode(value, type.slice(1));
  if (type.startsWith('[]')) {
    if (!Array.isArray(value)) return undefined;
    return value.map((v) => decode(v, type.slice(2)) ?? zero(type.slice(2)));
  }
  if (type.startsWith('{}')) {
    if (!isObject(value)) return undefined;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort())
      out[k] = decode(value[k], type.slice(2)) ?? zero(type.slice(2));
    return out;
  }
  switch (type) {
    case 's':
      return typeof value === 'string' ? value : '';
    case 'i':
    case 'f':
      return typeof value === 'number' ? value : 0;
    case 'b':
      return value === true;
    case 'q':
      return value === null || value === undefined ? '0' : canonicalQuantity(String(value));
    case 'ios':
      return typeof value === 'string' || typeof value === 'number' ? value : 0;
    case 't':
      return typeof value === 'string' && value ? value : null;
    case 'raw':
      return value ?? undefined;
    default:
      return encodeStruct(isObject(value) ? value : {}, type);
  }
}

/** The zero value Go writes for a nil element (a null inside a slice or map). */
function zero(type: string): unknown {
  if (type.startsWith('*') || type.startsWith('[]') || type.startsWith('{}') || type === 'raw') return null;
  return decode(undefined, type);
}

/** Whether Go's omitempty drops this (decoded) value. */
function empty(value: unknown, type: string): boolean {
  if (value === undefined) return true;
  if (type.startsWith('*')) return false;
  if (type.startsWith('[]')) return (value as unknown[]).length === 0;
  if (type.startsWith('{}')) return Object.keys(value as object).length === 0;
  // Structs (Quantity, IntOrString and Time among them) are never empty to Go.
  if (type === 's' || type === 'i' || type === 'f' || type === 'b')
    return value === '' || value === 0 || value === false;
  return false;
}

/**
 * `value` as a Go controller re-encodes it after decoding it into the named core/v1 struct:
 * fields in Go's order, unknown fields dropped, omitempty fields dropped when empty, fields without
 * omitempty written with their zero value (`"creationTimestamp":null`, `"resources":{}`),
 * quantities in canonical form.
 */
export function encodeStruct(value: Record<string, unknown>, struct: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fieldsOf(struct)) {
    const v = decode(value[f.json], f.type);
    if (f.omitEmpty && empty(v, f.type)) continue;
    out[f.json] = v === undefined ? null : v;
  }
  return out;
}
