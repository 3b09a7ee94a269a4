import { badRequest } from '../errors.ts';

/** One field as read off the wire: varints as bigint, fixed64/fixed32 and length-delimited as bytes. */
export type WireValue = bigint | Buffer;

/** A message read off the wire: field number → values in order. */
export type WireFields = Map<number, { wire: number; value: WireValue }[]>;

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw badRequest('protobuf: truncated varint');
    const byte = buf[pos++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, pos];
    shift += 7n;
    if (shift > 63n) throw badRequest('protobuf: varint overflow');
  }
}

/** Splits one message into its fields; throws 400 on malformed input. */
export function readMessage(buf: Buffer): WireFields {
  const fields: WireFields = new Map();
  let pos = 0;
  while (pos < buf.length) {
    const [tag, afterTag] = readVarint(buf, pos);
    pos = afterTag;
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    let value: WireValue;
    if (wire === 0) [value, pos] = readVarint(buf, pos);
    else if (wire === 2) {
      const [len, afterLen] = readVarint(buf, pos);
      const end = afterLen + Number(len);
      if (end > buf.length) throw badRequest('protobuf: truncated field');
      value = buf.subarray(afterLen, end);
      pos = end;
    } else if (wire === 1 || wire === 5) {
      const end = pos + (wire === 1 ? 8 : 4);
      if (end > buf.length) throw badRequest('protobuf: truncated field');
      value = buf.subarray(pos, end);
      pos = end;
    } else throw badRequest(`protobuf: unsupported wire type ${wire}`);
    const list = fields.get(field) ?? [];
    list.push({ wire, value });
    fields.set(field, list);
  }
  return fields;
}

/** Reads the varints of a packed repeated scalar. */
export function readPacked(buf: Buffer): bigint[] {
  const out: bigint[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [v, next] = readVarint(buf, pos);
    out.push(v);
    pos = next;
  }
  return out;
}

/** Builds one message field by field. */
export class MessageWriter {
  private readonly parts: Buffer[] = [];

  private varint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) byte |= 0x80;
      bytes.push(byte);
    } while (v > 0n);
    this.parts.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt(field * 8 + wire));
  }

  /** A varint field (int32, int64, bool). */
  int(field: number, value: number | bigint | boolean): void {
    this.tag(field, 0);
    this.varint(typeof value === 'bigint' ? value : BigInt(Math.trunc(Number(value))));
  }

  /** A double field. */
  double(field: number, value: number): void {
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    this.parts.push(b);
  }

  /** A float field. */
  float(field: number, value: number): void {
    this.tag(field, 5);
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.parts.push(b);
  }

  /** A length-delimited field (string, bytes, message). */
  bytes(field: number, value: Buffer | string): void {
    const b = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    this.tag(field, 2);
    this.varint(BigInt(b.length));
    this.parts.push(b);
  }

  /** The message's bytes. */
  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}
