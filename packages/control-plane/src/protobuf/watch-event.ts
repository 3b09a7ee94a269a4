/**
 * Protobuf watch streams as kube-apiserver writes them (`application/vnd.kubernetes.protobuf;stream=watch`):
 * each event is a frame of a 4-byte big-endian length and a `meta.v1.WatchEvent` message written
 * without the `k8s\0` envelope (apimachinery's RawSerializer with the LengthDelimitedFramer). The
 * event's `object` is a RawExtension whose bytes are the object's own enveloped encoding.
 */
import { decodeMessage, encodeObject } from './codec.ts';
import { MessageWriter } from './wire.ts';

const WATCH_EVENT = 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent';

/** One decoded watch event. */
export interface WatchEventJson {
  type: string;
  object: any;
}

/**
 * The frame of one event, or undefined when the object's kind has no protobuf message
 * (custom resources).
 */
export function encodeWatchFrame(type: string, object: unknown): Buffer | undefined {
  const embedded = encodeObject(object);
  if (!embedded) return undefined;
  const raw = new MessageWriter();
  raw.bytes(1, embedded);
  const event = new MessageWriter();
  event.bytes(1, type);
  event.bytes(2, raw.finish());
  const message = event.finish();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(message.length);
  return Buffer.concat([length, message]);
}

/** Decodes one WatchEvent message (a frame without its length). */
export function decodeWatchEvent(message: Buffer): WatchEventJson {
  // The RawExtension's bytes start with the envelope, which the codec decodes as the object.
  return decodeMessage(WATCH_EVENT, message);
}

/**
 * Splits a stream's bytes into whole events; returns them and the bytes of an incomplete last
 * frame, to prepend to the next chunk.
 */
export function readWatchFrames(buf: Buffer): { events: WatchEventJson[]; rest: Buffer } {
  const events: WatchEventJson[] = [];
  let pos = 0;
  while (buf.length - pos >= 4) {
    const end = pos + 4 + buf.readUInt32BE(pos);
    if (end > buf.length) break;
    events.push(decodeWatchEvent(buf.subarray(pos + 4, end)));
    pos = end;
  }
  return { events, rest: buf.subarray(pos) };
}
