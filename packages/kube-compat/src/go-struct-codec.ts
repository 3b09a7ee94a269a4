/**
 * Go's JSON round trip of a value through a struct (decode into the Go type, encode again), driven by
 * tables of struct shapes (see go-core-structs.ts for the notation): what a Go controller stores and
 * hashes, and Go's decode errors.
 */
import { GO_CORE_STRUCTS } from './go-core-structs.ts';
import { canonicalQuantity } from './quantity.ts';

interface Field {
  json: string;
  type: string;
  omitEmpty: boolean;
}

/** Encoding and decode checking of values as Go structs, for the structs of the tables it was made from. */
export interface GoStructCodec {
  /**
   * `value` as a Go controller re-encodes it after decoding it into the named struct:
   * fields in Go's order, unknown fields dropped, omitempty fields dropped when empty, fields without
   * omitempty written with their zero value (`"creationTimestamp":null`, `"resources":{}`),
   * quantities in canonical form.
   */
  encodeStruct(value: Record<string, unknown>, struct: string): Record<string, unknown>;
  /**
   * Where `value` cannot be decoded into the Go type (a string where an object belongs, an object
   * where a list belongs …), as Go's message: `json: cannot unmarshal string into Go struct field
   * CloneSet.spec.template.spec.containers of type []v1.Container`; undefined when it can.
   */
  goDecodeError(value: unknown, type: string, root: string, path: string): string | undefined;
}

/** A codec for the core/v1 structs plus `extra` (whose names must not clash with core/v1's). */
export function goStructCodec(extra: Record<string, string> = {}): GoStructCodec {
  const tables = { ...extra, ...GO_CORE_STRUCTS };
  const parsed = new Map<string, Field[]>();

  /** The fields of a Go struct in declaration order, inlined structs flattened. */
  function fieldsOf(struct: string): Field[] {
    let fields = parsed.get(struct);
    if (fields) return fields;
    const spec = tables[struct];
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
  function encodeStruct(value: Record<string, unknown>, struct: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of fieldsOf(struct)) {
      const v = decode(value[f.json], f.type);
      if (f.omitEmpty && empty(v, f.type)) continue;
      out[f.json] = v === undefined ? null : v;
    }
    return out;
  }

  const jsonKind = (v: unknown) =>
    Array.isArray(v)
      ? 'array'
      : v === null
        ? 'null'
        : typeof v === 'number'
          ? 'number'
          : typeof v === 'object'
            ? 'object'
            : typeof v;

  /** A Go type's name as encoding/json reports it (`[]v1.Container`, `map[string]string`, `int32`). */
  function goTypeName(type: string): string {
    if (type.startsWith('*')) return goTypeName(type.slice(1));
    if (type.startsWith('[]')) return `[]${goTypeName(type.slice(2))}`;
    if (type.startsWith('{}')) return `map[string]${goTypeName(type.slice(2))}`;
    const scalar: Record<string, string> = {
      s: 'string',
      i: 'int32',
      f: 'float64',
      b: 'bool',
      q: 'resource.Quantity',
      ios: 'intstr.IntOrString',
      t: 'v1.Time',
    };
    return scalar[type] ?? `v1.${type}`;
  }

  /**
   * Where `value` cannot be decoded into the Go type (a string where an object belongs, an object
   * where a list belongs …), as Go's message: `json: cannot unmarshal string into Go struct field
   * CloneSet.spec.template.spec.containers of type []v1.Container`; undefined when it can.
   */
  function goDecodeError(value: unknown, type: string, root: string, path: string): string | undefined {
    if (value === null || value === undefined) return undefined;
    const fail = () =>
      `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${root}.${path} of type ${goTypeName(type)}`;
    if (type.startsWith('*')) return goDecodeError(value, type.slice(1), root, path);
    if (type.startsWith('[]')) {
      if (!Array.isArray(value)) return fail();
      for (const v of value) {
        const e = goDecodeError(v, type.slice(2), root, path);
        if (e) return e;
      }
      return undefined;
    }
    if (type.startsWith('{}')) {
      if (jsonKind(value) !== 'object') return fail();
      for (const [k, v] of Object.entries(value as object)) {
        const e = goDecodeError(v, type.slice(2), root, `${path}.${k}`);
        if (e) return e;
      }
      return undefined;
    }
    switch (type) {
      case 's':
        return typeof value === 'string' ? undefined : fail();
      case 'i':
        return typeof value === 'number' && Number.isInteger(value) ? undefined : fail();
      case 'f':
        return typeof value === 'number' ? undefined : fail();
      case 'b':
        return typeof value === 'boolean' ? undefined : fail();
      case 'q':
      case 'ios':
        return typeof value === 'string' || typeof value === 'number' ? undefined : fail();
      case 't':
        return typeof value === 'string' ? undefined : fail();
      case 'raw':
        return undefined;
      default: {
        if (jsonKind(value) !== 'object') return fail();
        for (const f of fieldsOf(type)) {
          const e = goDecodeError(
            (value as Record<string, unknown>)[f.json],
            f.type,
            root,
            path ? `${path}.${f.json}` : f.json,
          );
          if (e) return e;
        }
        return undefined;
      }
    }
  }

  return { encodeStruct, goDecodeError };
}

/** The codec of the core/v1 structs alone (pod templates, claims). */
export const coreStructCodec: GoStructCodec = goStructCodec();
