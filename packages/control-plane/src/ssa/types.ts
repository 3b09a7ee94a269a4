import { messageOfKind } from '../protobuf/codec.ts';
import { ATOMIC_MESSAGES, MESSAGES } from '../protobuf/generated/schema.ts';
import { isStringArrayMessage, WELL_KNOWN } from '../protobuf/well-known.ts';
import { apiVersionOf, type ResourceType } from '../registry/types.ts';

/**
 * How server-side apply sees a value (structured-merge-diff's schema): structs with named fields,
 * granular maps, lists that are atomic, sets or maps keyed by some fields, scalars, and untyped
 * values whose shape is deduced (objects as maps, arrays atomic).
 */
export type SsaType =
  | { kind: 'struct'; fields: Map<string, SsaField>; atomic: boolean; open: boolean }
  | { kind: 'map'; elem: SsaType; atomic: boolean }
  | {
      kind: 'list';
      elem: SsaType;
      rel: 'atomic' | 'set' | 'map';
      keys: string[];
      /** Values of key fields an item leaves out (their schema defaults, e.g. a port's protocol). */
      keyDefaults?: Record<string, unknown>;
    }
  | { kind: 'scalar' }
  | { kind: 'untyped' };

/** A named field of a struct. */
export interface SsaField {
  type: SsaType;
  /** A Go value field (not a pointer): always present in the live object, so never reported as added. */
  implicit: boolean;
}

const SCALAR: SsaType = { kind: 'scalar' };
const UNTYPED: SsaType = { kind: 'untyped' };
const SCALAR_MESSAGES = new Set<string>([
  WELL_KNOWN.time,
  WELL_KNOWN.microTime,
  WELL_KNOWN.duration,
  WELL_KNOWN.quantity,
  WELL_KNOWN.intOrString,
]);
const UNTYPED_MESSAGES = new Set<string>([
  WELL_KNOWN.rawExtension,
  WELL_KNOWN.fieldsV1,
  WELL_KNOWN.json,
  WELL_KNOWN.schemaOrArray,
  WELL_KNOWN.schemaOrBool,
  WELL_KNOWN.schemaOrStringArray,
]);

const builtins = new Map<string, SsaType>();

function listOf(elem: SsaType, merge: string): SsaType {
  if (merge.startsWith('m:')) {
    const keys = merge.slice(2).split(',');
    // The one defaulted key of the built-in list maps: ports' protocol (Kubernetes' OpenAPI default).
    const keyDefaults = keys.includes('protocol') ? { protocol: 'TCP' } : undefined;
    return { kind: 'list', elem, rel: 'map', keys, ...(keyDefaults ? { keyDefaults } : {}) };
  }
  return { kind: 'list', elem, rel: merge === 's' ? 'set' : 'atomic', keys: [] };
}

function atomicOf(t: SsaType): SsaType {
  return t.kind === 'struct' || t.kind === 'map' ? { ...t, atomic: true } : t;
}

function typeOfProto(type: string): SsaType {
  if (type.startsWith('map<'))
    return { kind: 'map', elem: typeOfProto(type.slice(type.indexOf(',') + 1, -1)), atomic: false };
  if (!type.includes('.')) return SCALAR;
  if (SCALAR_MESSAGES.has(type)) return SCALAR;
  if (UNTYPED_MESSAGES.has(type)) return UNTYPED;
  if (isStringArrayMessage(type)) return { kind: 'list', elem: SCALAR, rel: 'atomic', keys: [] };
  return messageType(type);
}

/** The type of a generated message (cached; recursive messages share one node). */
function messageType(name: string): SsaType {
  const cached = builtins.get(name);
  if (cached) return cached;
  const fields = new Map<string, SsaField>();
  const t: SsaType = { kind: 'struct', fields, atomic: ATOMIC_MESSAGES.has(name), open: false };
  builtins.set(name, t);
  for (const [, json, ftype, flags, merge] of MESSAGES[name] ?? []) {
    const base = typeOfProto(ftype);
    if (flags & 8 && base.kind === 'struct') {
      for (const [k, f] of base.fields) fields.set(k, f);
      continue;
    }
    let type = flags & 1 ? listOf(base, merge) : base;
    if (merge === 'a') type = atomicOf(type);
    fields.set(json, { type, implicit: base.kind === 'struct' && !(flags & 1) && !(flags & 2) });
  }
  return t;
}

/** The type of a CRD's structural schema node, with its `x-kubernetes-*` extensions. */
export function schemaType(schema: any): SsaType {
  if (!schema || typeof schema !== 'object') return UNTYPED;
  if (schema['x-kubernetes-int-or-string']) return SCALAR;
  if (schema.type === 'array') {
    const elem = schemaType(schema.items);
    const rel = schema['x-kubernetes-list-type'];
    if (rel === 'map') {
      const keys: string[] = schema['x-kubernetes-list-map-keys'] ?? [];
      const keyDefaults: Record<string, unknown> = {};
      for (const k of keys) {
        const d = schema.items?.properties?.[k]?.default;
        if (d !== undefined) keyDefaults[k] = d;
      }
      return { kind: 'list', elem, rel: 'map', keys, keyDefaults };
    }
    return { kind: 'list', elem, rel: rel === 'set' ? 'set' : 'atomic', keys: [] };
  }
  const atomic = schema['x-kubernetes-map-type'] === 'atomic';
  if (schema.type === 'object' || schema.properties || schema.additionalProperties) {
    if (schema.properties || schema['x-kubernetes-embedded-resource']) {
      const fields = new Map<string, SsaField>();
      for (const [k, v] of Object.entries<any>(schema.properties ?? {}))
        fields.set(k, { type: schemaType(v), implicit: false });
      return {
        kind: 'struct',
        fields,
        atomic,
        open: Boolean(schema['x-kubernetes-preserve-unknown-fields']),
      };
    }
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
      return { kind: 'map', elem: schemaType(schema.additionalProperties), atomic };
    return atomic ? { kind: 'map', elem: UNTYPED, atomic } : UNTYPED;
  }
  return schema.type ? SCALAR : UNTYPED;
}

const byResource = new WeakMap<ResourceType, SsaType>();

/** The server-side apply type of a resource: its CRD schema, or its Kubernetes message. */
export function ssaTypeOf(type: ResourceType): SsaType {
  let t = byResource.get(type);
  if (!t) {
    const message = type.schema ? undefined : messageOfKind(apiVersionOf(type), type.kind);
    t = type.schema ? schemaType(type.schema) : message ? messageType(message) : UNTYPED;
    if (t.kind === 'struct' && type.schema) {
      // apiVersion, kind and metadata are the same for every object.
      const meta = messageType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
      t = { ...t, fields: new Map([...t.fields, ['metadata', { type: meta, implicit: false }]]) };
    }
    byResource.set(type, t);
  }
  return t;
}
