import { ApiError, type StatusCause } from '../errors.ts';
import { quantityValue } from '../registry/builtins/quantity.ts';
import type { BuiltinSchemas, Schema } from './builtin-schemas.ts';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const QUANTITY_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** How Go's encoding/json names a JSON value in its errors. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'number' : `number ${v}`;
  return typeof v === 'object' ? 'object' : 'string';
}

/** Where a value sits, as Go's decoder reports it: the innermost struct and the JSON path without indices. */
interface Place {
  path: string;
  goPath: string;
  struct: string;
}

const child = (p: Place, key: string): Place => ({
  path: p.path ? `${p.path}.${key}` : key,
  goPath: p.goPath ? `${p.goPath}.${key}` : key,
  struct: p.struct,
});

/**
 * Decodes a built-in object against its Kubernetes schema as kube-apiserver's JSON decoder does:
 * a value of the wrong JSON type fails the whole request (400, Go's message), unknown fields are
 * dropped and returned (`spec.containers[0].foo`) for the caller to warn about or refuse, and
 * `null` members are dropped (Go decodes them to zero values).
 */
export class BuiltinDecoder {
  private readonly schemas: BuiltinSchemas;

  constructor(schemas: BuiltinSchemas) {
    this.schemas = schemas;
  }

  private resolve(schema: Schema): { schema: Schema; name?: string } {
    let name: string | undefined;
    let s = schema;
    while (s.$ref) {
      name = String(s.$ref).slice('#/definitions/'.length);
      s = this.schemas.definitions.get(name) ?? {};
    }
    return { schema: s, name };
  }

  /** The Go type a schema decodes into, as encoding/json names it in errors. */
  private goType(schema: Schema): string {
    const { schema: s, name } = this.resolve(schema);
    if (name && s.type === 'object' && s.properties) return this.schemas.goTypes.get(name) ?? 'struct';
    if (s.type === 'array') return `[]${this.goType(s.items ?? {})}`;
    if (s.type === 'object' && s.additionalProperties)
      return `map[string]${this.goType(s.additionalProperties)}`;
    if (s.type === 'boolean') return 'bool';
    if (s.type === 'integer') return s.format === 'int32' ? 'int32' : 'int64';
    if (s.type === 'number') return 'float64';
    if (s.type === 'string') return 'string';
    return 'interface {}';
  }

  /**
   * Decodes `obj` (of `kind` in `version`, definition `definition`) in place.
   * @returns the unknown fields it dropped.
   * @throws ApiError 400 with kube-apiserver's message for a value of the wrong type.
   */
  decode(definition: string, kind: string, version: string, obj: Record<string, unknown>): string[] {
    const unknown: string[] = [];
    const fail = (detail: string) =>
      new ApiError(
        400,
        'BadRequest',
        `${kind} in version "${version}" cannot be handled as a ${kind}: ${detail}`,
      );
    const walk = (value: unknown, schema: Schema, at: Place, fieldType: Schema): void => {
      const { schema: s, name } = this.resolve(schema);
      if (value === null || value === undefined) return;
      const mismatch = () =>
        fail(
          at.goPath
            ? `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${at.struct}.${at.goPath} of type ${this.goType(fieldType)}`
            : `json: cannot unmarshal ${jsonKind(value)} into Go value of type ${this.goType(fieldType)}`,
        );
      if (name === QUANTITY) {
        if ((typeof value !== 'string' && typeof value !== 'number') || quantityValue(value) === undefined)
          throw fail(QUANTITY_ERROR);
        return;
      }
      if (name === INT_OR_STRING) {
        if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value)))
          throw fail(`json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`);
        return;
      }
      if (s['x-kubernetes-preserve-unknown-fields'] || (!s.type && !s.anyOf)) return;
      switch (s.type) {
        case 'string':
          if (typeof value !== 'string') throw mismatch();
          return;
        case 'integer':
          if (typeof value !== 'number' || !Number.isInteger(value)) throw mismatch();
          return;
        case 'number':
          if (typeof value !== 'number') throw mismatch();
          return;
        case 'boolean':
          if (typeof value !== 'boolean') throw mismatch();
          return;
        case 'array':
          if (!Array.isArray(value)) throw mismatch();
          for (const [i, v] of value.entries())
            walk(v, s.items ?? {}, { ...at, path: `${at.path}[${i}]` }, s.items ?? {});
          return;
        case 'object': {
          if (!isObject(value)) throw mismatch();
          if (s.additionalProperties) {
            for (const v of Object.values(value)) walk(v, s.additionalProperties, at, s.additionalProperties);
            return;
          }
          const struct = name ? (this.schemas.goTypes.get(name) ?? '').split('.').pop()! : at.struct;
          for (const key of Object.keys(value)) {
            const property = s.properties?.[key];
            if (!property) {
              unknown.push(at.path ? `${at.path}.${key}` : key);
              delete value[key];
            } else if (value[key] === null) delete value[key];
            else walk(value[key], property, { ...child(at, key), struct }, property);
          }
          return;
        }
      }
    };
    walk(obj, { $ref: `#/definitions/${definition}` }, { path: '', goPath: '', struct: kind }, {});
    return unknown;
  }

  /**
   * What the schema requires of a decoded object, as kube-apiserver's validation words it:
   * required fields (Go's zero values count as missing) and enum values.
   */
  causes(definition: string, obj: unknown): StatusCause[] {
    const causes: StatusCause[] = [];
    const walk = (value: unknown, schema: Schema, path: string): void => {
      const { schema: s } = this.resolve(schema);
      if (value === null || value === undefined) return;
      if (s.enum && typeof value === 'string' && !s.enum.includes(value)) {
        causes.push({
          reason: 'FieldValueNotSupported',
          field: path,
          message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${s.enum.map((v: string) => JSON.stringify(v)).join(', ')}`,
        });
      }
      if (Array.isArray(value) && s.type === 'array')
        for (const [i, v] of value.entries()) walk(v, s.items ?? {}, `${path}[${i}]`);
      if (!isObject(value) || s.type !== 'object') return;
      if (s.additionalProperties) {
        for (const [k, v] of Object.entries(value)) walk(v, s.additionalProperties, `${path}[${k}]`);
        return;
      }
      for (const key of s.required ?? []) {
        const v = value[key];
        if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0))
          causes.push({
            reason: 'FieldValueRequired',
            field: path ? `${path}.${key}` : key,
            message: 'Required value',
          });
      }
      for (const [key, v] of Object.entries(value)) {
        const property = s.properties?.[key];
        if (property) walk(v, property, path ? `${path}.${key}` : key);
      }
    };
    walk(obj, { $ref: `#/definitions/${definition}` }, '');
    return causes;
  }
}
