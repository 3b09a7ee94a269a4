import { badRequest } from '../errors.ts';
import { KINDS, MESSAGES } from './generated/schema.ts';
import {
  formatDuration,
  formatTime,
  isStringArrayMessage,
  parseDuration,
  parseTime,
  WELL_KNOWN,
} from './well-known.ts';
import { MessageWriter, readMessage, readPacked, type WireFields, type WireValue } from './wire.ts';

const REPEATED = 1;
const POINTER = 2;
const OMITEMPTY = 4;
const INLINE = 8;

const VARINT_TYPES = new Set(['int32', 'int64', 'uint32', 'uint64', 'bool']);
const SCALARS = new Set([...VARINT_TYPES, 'string', 'bytes', 'double', 'float']);

/** Bytes that start an enveloped object (`k8s\0`). */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Json = any;

function scalar(type: string, value: WireValue): Json {
  if (Buffer.isBuffer(value)) {
    if (type === 'string') return value.toString('utf8');
    if (type === 'bytes') return value.toString('base64');
    if (type === 'double') return value.readDoubleLE(0);
    if (type === 'float') return value.readFloatLE(0);
    throw badRequest(`protobuf: wire type mismatch for ${type}`);
  }
  if (type === 'bool') return value !== 0n;
  if (type === 'int32') return Number(BigInt.asIntN(32, value));
  if (type === 'int64') return Number(BigInt.asIntN(64, value));
  if (type === 'uint32' || type === 'uint64') return Number(value);
  throw badRequest(`protobuf: wire type mismatch for ${type}`);
}

function bytesOf(value: WireValue | undefined): Buffer {
  if (value === undefined) return Buffer.alloc(0);
  if (!Buffer.isBuffer(value)) throw badRequest('protobuf: expected a length-delimited field');
  return value;
}

const last = (f: WireFields, n: number) => f.get(n)?.at(-1)?.value;

function rawJson(f: WireFields): Json {
  const raw = bytesOf(last(f, 1));
  if (raw.length === 0) return undefined;
  try {
    return raw.subarray(0, 4).equals(PROTOBUF_MAGIC) ? decodeObject(raw) : JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`protobuf: embedded JSON is not valid: ${(err as Error).message}`);
  }
}

function decodeWellKnown(type: string, f: WireFields): { value: Json } | undefined {
  switch (type) {
    case WELL_KNOWN.time:
    case WELL_KNOWN.microTime: {
      const seconds = last(f, 1);
      const nanos = last(f, 2);
      if (seconds === undefined && nanos === undefined) return { value: undefined };
      return {
        value: formatTime(
          scalar('int64', seconds ?? 0n),
          scalar('int32', nanos ?? 0n),
          type === WELL_KNOWN.microTime,
        ),
      };
    }
    case WELL_KNOWN.duration:
      return { value: formatDuration(BigInt.asIntN(64, (last(f, 1) as bigint | undefined) ?? 0n)) };
    case WELL_KNOWN.quantity:
      return { value: bytesOf(last(f, 1)).toString('utf8') };
    case WELL_KNOWN.intOrString:
      return last(f, 1) === 1n
        ? { value: bytesOf(last(f, 3)).toString('utf8') }
        : { value: scalar('int32', last(f, 2) ?? 0n) };
    case WELL_KNOWN.rawExtension:
    case WELL_KNOWN.fieldsV1:
    case WELL_KNOWN.json:
      return { value: rawJson(f) };
    case WELL_KNOWN.schemaOrBool: {
      const schema = last(f, 2);
      return {
        value: schema ? decodeMessage(type.replace(/OrBool$/, ''), bytesOf(schema)) : last(f, 1) === 1n,
      };
    }
    case WELL_KNOWN.schemaOrArray:
    case WELL_KNOWN.schemaOrStringArray: {
      const props = type.replace(/Or(String)?Array$/, '');
      const many = f.get(2) ?? [];
      if (many.length) {
        return {
          value: many.map((e) =>
            type === WELL_KNOWN.schemaOrArray
              ? decodeMessage(props, bytesOf(e.value))
              : scalar('string', e.value),
          ),
        };
      }
      return { value: decodeMessage(props, bytesOf(last(f, 1))) };
    }
    default:
      if (isStringArrayMessage(type))
        return { value: (f.get(1) ?? []).map((e) => scalar('string', e.value)) };
      return undefined;
  }
}

function decodeValue(type: string, value: WireValue): Json {
  return SCALARS.has(type) ? scalar(type, value) : decodeMessage(type, bytesOf(value));
}

function mapTypes(type: string): [string, string] {
  const inner = type.slice(4, -1);
  const comma = inner.indexOf(',');
  return [inner.slice(0, comma), inner.slice(comma + 1)];
}

const isZero = (v: Json) => v === '' || v === 0 || v === false;

/** Decodes one message into the JSON object kube-apiserver would hold for it. */
export function decodeMessage(type: string, buf: Buffer): Json {
  const f = readMessage(buf);
  const known = decodeWellKnown(type, f);
  if (known) return known.value;
  const rows = MESSAGES[type];
  if (!rows) throw badRequest(`protobuf: no schema for ${type}`);
  const out: Record<string, Json> = {};
  for (const [num, json, ftype, flags] of rows) {
    const entries = f.get(num);
    if (!entries?.length) continue;
    if (ftype.startsWith('map<')) {
      const [keyType, valueType] = mapTypes(ftype);
      const map: Record<string, Json> = {};
      for (const e of entries) {
        const entry = readMessage(bytesOf(e.value));
        const k = last(entry, 1);
        const v = last(entry, 2);
        map[k === undefined ? '' : String(scalar(keyType, k))] =
          v === undefined
            ? SCALARS.has(valueType)
              ? zeroOf(valueType)
              : decodeValue(valueType, Buffer.alloc(0))
            : decodeValue(valueType, v);
      }
      out[json] = map;
    } else if (flags & REPEATED) {
      const values: Json[] = [];
      for (const e of entries) {
        if (VARINT_TYPES.has(ftype) && Buffer.isBuffer(e.value))
          for (const v of readPacked(e.value)) values.push(scalar(ftype, v));
        else values.push(decodeValue(ftype, e.value));
      }
      out[json] = values;
    } else {
      const value = decodeValue(ftype, entries.at(-1)!.value);
      if (value === undefined) continue;
      if (flags & INLINE && value && typeof value === 'object') Object.assign(out, value);
      else if (!(SCALARS.has(ftype) && !(flags & POINTER) && flags & OMITEMPTY && isZero(value)))
        out[json] = value;
    }
  }
  return out;
}

function zeroOf(type: string): Json {
  if (type === 'string' || type === 'bytes') return '';
  if (type === 'bool') return false;
  return 0;
}

function writeScalar(w: MessageWriter, num: number, type: string, v: Json): void {
  if (type === 'string') w.bytes(num, typeof v === 'string' ? v : JSON.stringify(v));
  else if (type === 'bytes') w.bytes(num, Buffer.from(String(v), 'base64'));
  else if (type === 'bool') w.int(num, Boolean(v));
  else if (type === 'double' || type === 'float') {
    if (Number.isFinite(Number(v))) (type === 'double' ? w.double : w.float).call(w, num, Number(v));
  } else if (Number.isFinite(Number(v))) w.int(num, Number(v));
}

function writeValue(w: MessageWriter, num: number, type: string, v: Json): void {
  if (SCALARS.has(type)) writeScalar(w, num, type, v);
  else w.bytes(num, encodeMessage(type, v));
}

function encodeWellKnown(type: string, v: Json, w: MessageWriter): boolean {
  switch (type) {
    case WELL_KNOWN.time:
    case WELL_KNOWN.microTime: {
      const t = typeof v === 'string' ? parseTime(v) : undefined;
      if (t) {
        w.int(1, t.seconds);
        if (type === WELL_KNOWN.microTime && t.nanos) w.int(2, t.nanos);
      }
      return true;
    }
    case WELL_KNOWN.duration:
      w.int(1, parseDuration(String(v)) ?? 0n);
      return true;
    case WELL_KNOWN.quantity:
      w.bytes(1, String(v));
      return true;
    case WELL_KNOWN.intOrString:
      if (typeof v === 'number') {
        w.int(1, 0);
        w.int(2, v);
      } else {
        w.int(1, 1);
        w.bytes(3, String(v));
      }
      return true;
    case WELL_KNOWN.rawExtension:
    case WELL_KNOWN.fieldsV1:
    case WELL_KNOWN.json:
      if (v !== undefined) w.bytes(1, JSON.stringify(v));
      return true;
    case WELL_KNOWN.schemaOrBool:
      w.int(1, typeof v === 'boolean' ? v : true);
      if (typeof v !== 'boolean') w.bytes(2, encodeMessage(type.replace(/OrBool$/, ''), v));
      return true;
    case WELL_KNOWN.schemaOrArray:
    case WELL_KNOWN.schemaOrStringArray: {
      const props = type.replace(/Or(String)?Array$/, '');
      if (Array.isArray(v))
        for (const item of v) writeValue(w, 2, type === WELL_KNOWN.schemaOrArray ? props : 'string', item);
      else w.bytes(1, encodeMessage(props, v));
      return true;
    }
    default:
      if (!isStringArrayMessage(type)) return false;
      for (const item of Array.isArray(v) ? v : []) w.bytes(1, String(item));
      return true;
  }
}

/** Encodes a JSON object as the message `type` (fields it does not know are left out, as a typed client would). */
export function encodeMessage(type: string, value: Json): Buffer {
  const w = new MessageWriter();
  if (encodeWellKnown(type, value, w)) return w.finish();
  const rows = MESSAGES[type];
  if (!rows) throw new Error(`protobuf: no schema for ${type}`);
  const obj = value && typeof value === 'object' ? value : {};
  for (const [num, json, ftype, flags] of [...rows].sort((a, b) => a[0] - b[0])) {
    if (flags & INLINE) {
      w.bytes(num, encodeMessage(ftype, obj));
      continue;
    }
    const v = obj[json];
    if (v === undefined || v === null) continue;
    if (ftype.startsWith('map<')) {
      const [keyType, valueType] = mapTypes(ftype);
      for (const [k, item] of Object.entries(v)) {
        const entry = new MessageWriter();
        writeScalar(entry, 1, keyType, k);
        if (item !== null && item !== undefined) writeValue(entry, 2, valueType, item);
        w.bytes(num, entry.finish());
      }
    } else if (flags & REPEATED) {
      for (const item of Array.isArray(v) ? v : []) writeValue(w, num, ftype, item);
    } else writeValue(w, num, ftype, v);
  }
  return w.finish();
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** The message of a kind, or undefined when it has none (custom resources). */
export function messageOfKind(apiVersion: string, kind: string): string | undefined {
  if (kind === 'Status' || kind === 'DeleteOptions' || kind === 'WatchEvent') return `${META}.${kind}`;
  return KINDS[`${apiVersion}/${kind}`];
}

/** Decodes an enveloped object (`k8s\0` + runtime.Unknown + the kind's message) into JSON. */
export function decodeObject(body: Buffer): Json {
  if (!body.subarray(0, 4).equals(PROTOBUF_MAGIC))
    throw badRequest('protobuf: missing the k8s envelope prefix');
  const unknown = readMessage(body.subarray(4));
  const typeMeta = readMessage(bytesOf(last(unknown, 1)));
  const apiVersion = bytesOf(last(typeMeta, 1)).toString('utf8');
  const kind = bytesOf(last(typeMeta, 2)).toString('utf8');
  const type = messageOfKind(apiVersion, kind);
  if (!type) throw badRequest(`protobuf: no schema for ${apiVersion}, Kind=${kind}`);
  return { apiVersion, kind, ...decodeMessage(type, bytesOf(last(unknown, 2))) };
}

/** Wraps a message in the envelope. */
export function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = new MessageWriter();
  typeMeta.bytes(1, apiVersion);
  typeMeta.bytes(2, kind);
  const unknown = new MessageWriter();
  unknown.bytes(1, typeMeta.finish());
  unknown.bytes(2, raw);
  unknown.bytes(3, '');
  unknown.bytes(4, '');
  return Buffer.concat([PROTOBUF_MAGIC, unknown.finish()]);
}

/** Encodes an object with its apiVersion and kind as kube-apiserver does, or undefined when the kind has no message. */
export function encodeObject(obj: Json): Buffer | undefined {
  const apiVersion = String(obj?.apiVersion ?? '');
  const kind = String(obj?.kind ?? '');
  const type = messageOfKind(apiVersion, kind);
  if (!type) return undefined;
  return envelope(apiVersion, kind, encodeMessage(type, obj));
}
