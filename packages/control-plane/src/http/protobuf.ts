import { badRequest } from '../errors.ts';

/** The magic prefix of Kubernetes' protobuf envelope (`runtime.Unknown`). */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Fields = Map<number, (Buffer | number)[]>;

function readVarint(buf: Buffer, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (pos >= buf.length) throw badRequest('protobuf: truncated varint');
    const byte = buf[pos++]!;
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [result, pos];
    shift += 7;
    if (shift > 63) throw badRequest('protobuf: varint overflow');
  }
}

/** Decodes one protobuf message into field number → values (varints as numbers, the rest as bytes). */
function decodeMessage(buf: Buffer): Fields {
  const fields: Fields = new Map();
  let pos = 0;
  while (pos < buf.length) {
    const [tag, afterTag] = readVarint(buf, pos);
    pos = afterTag;
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    let value: Buffer | number;
    if (wire === 0) [value, pos] = readVarint(buf, pos);
    else if (wire === 2) {
      const [len, afterLen] = readVarint(buf, pos);
      value = buf.subarray(afterLen, afterLen + len);
      pos = afterLen + len;
    } else if (wire === 1) {
      value = buf.subarray(pos, pos + 8);
      pos += 8;
    } else if (wire === 5) {
      value = buf.subarray(pos, pos + 4);
      pos += 4;
    } else throw badRequest(`protobuf: unsupported wire type ${wire}`);
    const list = fields.get(field) ?? [];
    list.push(value);
    fields.set(field, list);
  }
  return fields;
}

const str = (f: Fields, n: number): string | undefined => {
  const v = f.get(n)?.[0];
  return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
};
const msg = (f: Fields, n: number): Fields | undefined => {
  const v = f.get(n)?.[0];
  return Buffer.isBuffer(v) ? decodeMessage(v) : undefined;
};

const strs = (f: Fields, n: number): string[] =>
  (f.get(n) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v)).map((v) => v.toString('utf8'));

/** A protobuf `map<string, string|bytes>`: repeated entries with key = 1, value = 2. */
function map(f: Fields, n: number, bytes: boolean): Record<string, string> | undefined {
  const entries = (f.get(n) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));
  if (!entries.length) return undefined;
  const out: Record<string, string> = {};
  for (const e of entries) {
    const entry = decodeMessage(e);
    const value = entry.get(2)?.[0];
    const buf = Buffer.isBuffer(value) ? value : Buffer.alloc(0);
    out[str(entry, 1) ?? ''] = bytes ? buf.toString('base64') : buf.toString('utf8');
  }
  return out;
}

const bool = (f: Fields, n: number): boolean | undefined => {
  const v = f.get(n)?.[0];
  return typeof v === 'number' ? v !== 0 : undefined;
};

/** The writable parts of metav1.ObjectMeta. */
function objectMeta(f: Fields | undefined): Record<string, unknown> {
  if (!f) return {};
  const meta: Record<string, unknown> = {};
  const name = str(f, 1);
  const generateName = str(f, 2);
  const namespace = str(f, 3);
  if (name) meta.name = name;
  if (generateName) meta.generateName = generateName;
  if (namespace) meta.namespace = namespace;
  const labels = map(f, 11, false);
  const annotations = map(f, 12, false);
  if (labels) meta.labels = labels;
  if (annotations) meta.annotations = annotations;
  const finalizers = strs(f, 14);
  if (finalizers.length) meta.finalizers = finalizers;
  return meta;
}

/**
 * Decodes the built-in objects kubectl's generators send as protobuf (`kubectl create namespace`,
 * `create configmap`, `create secret generic`, `create serviceaccount`) into JSON, or undefined
 * for any other kind.
 */
export function decodeBuiltinObject(
  apiVersion: string,
  kind: string,
  raw: Buffer,
): Record<string, unknown> | undefined {
  if (apiVersion !== 'v1') return undefined;
  const f = decodeMessage(raw);
  const base = { apiVersion, kind, metadata: objectMeta(msg(f, 1)) };
  switch (kind) {
    case 'Namespace': {
      const finalizers = strs(msg(f, 2) ?? new Map(), 1);
      return { ...base, ...(finalizers.length ? { spec: { finalizers } } : {}) };
    }
    case 'ConfigMap': {
      const data = map(f, 2, false);
      const binaryData = map(f, 3, true);
      const immutable = bool(f, 4);
      return {
        ...base,
        ...(data ? { data } : {}),
        ...(binaryData ? { binaryData } : {}),
        ...(immutable !== undefined ? { immutable } : {}),
      };
    }
    case 'Secret': {
      const data = map(f, 2, true);
      const type = str(f, 3);
      const stringData = map(f, 4, false);
      return {
        ...base,
        ...(data ? { data } : {}),
        ...(type ? { type } : {}),
        ...(stringData ? { stringData } : {}),
      };
    }
    case 'ServiceAccount': {
      const automount = bool(f, 4);
      return { ...base, ...(automount !== undefined ? { automountServiceAccountToken: automount } : {}) };
    }
    default:
      return undefined;
  }
}

/** Unwraps the envelope: the object's apiVersion, kind and raw message bytes. */
export function decodeEnvelope(body: Buffer): { apiVersion: string; kind: string; raw: Buffer } {
  if (!body.subarray(0, 4).equals(MAGIC)) throw badRequest('protobuf: missing the k8s envelope prefix');
  const unknown = decodeMessage(body.subarray(4));
  const typeMeta = msg(unknown, 1) ?? new Map();
  const raw = unknown.get(2)?.[0];
  return {
    apiVersion: str(typeMeta, 1) ?? '',
    kind: str(typeMeta, 2) ?? '',
    raw: Buffer.isBuffer(raw) ? raw : Buffer.alloc(0),
  };
}

/** Decodes an authorization.k8s.io/v1 SelfSubjectAccessReview sent as protobuf (as `kubectl auth can-i` does). */
export function decodeSelfSubjectAccessReview(raw: Buffer): Record<string, any> {
  const review = decodeMessage(raw);
  const spec = msg(review, 2) ?? new Map();
  const ra = msg(spec, 1);
  const nra = msg(spec, 2);
  const out: Record<string, any> = {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: {},
  };
  if (ra) {
    out.spec.resourceAttributes = {
      namespace: str(ra, 1) ?? '',
      verb: str(ra, 2) ?? '',
      group: str(ra, 3) ?? '',
      version: str(ra, 4) ?? '',
      resource: str(ra, 5) ?? '',
      subresource: str(ra, 6) ?? '',
      name: str(ra, 7) ?? '',
    };
  }
  if (nra) out.spec.nonResourceAttributes = { path: str(nra, 1) ?? '', verb: str(nra, 2) ?? '' };
  return out;
}
