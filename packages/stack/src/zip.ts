import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

/** One file of a zip archive, as its central directory lists it. */
interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, offset + done);
    if (n === 0) throw new Error(`zip: unexpected end of file at ${offset + done}`);
    done += n;
  }
  return buf;
}

function centralDirectory(fd: number, fileSize: number): ZipEntry[] {
  // The end record sits in the last 22 bytes plus an optional comment of up to 64 KiB.
  const tailLength = Math.min(fileSize, 22 + 0xffff);
  const tail = readAt(fd, fileSize - tailLength, tailLength);
  let end = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('zip: no end of central directory record');
  const count = tail.readUInt16LE(end + 10);
  const size = tail.readUInt32LE(end + 12);
  const offset = tail.readUInt32LE(end + 16);
  const dir = readAt(fd, offset, size);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (dir.readUInt32LE(p) !== CENTRAL_FILE_HEADER) throw new Error('zip: bad central directory entry');
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    entries.push({
      method: dir.readUInt16LE(p + 10),
      compressedSize: dir.readUInt32LE(p + 20),
      size: dir.readUInt32LE(p + 24),
      localHeaderOffset: dir.readUInt32LE(p + 42),
      name: dir.toString('utf8', p + 46, p + 46 + nameLength),
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Reads one file out of a zip archive (stored or deflated; no zip64), so that tests need no
 * `unzip` binary, which a fresh Debian machine does not have.
 */
export function readZipEntry(zipPath: string, name: string): Buffer {
  const fd = openSync(zipPath, 'r');
  try {
    const entry = centralDirectory(fd, statSync(zipPath).size).find((e) => e.name === name);
    if (!entry) throw new Error(`zip: ${zipPath} has no entry ${name}`);
    const local = readAt(fd, entry.localHeaderOffset, 30);
    if (local.readUInt32LE(0) !== LOCAL_FILE_HEADER) throw new Error(`zip: bad local header for ${name}`);
    const dataStart = entry.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const data = readAt(fd, dataStart, entry.compressedSize);
    if (entry.method === 0) return data;
    if (entry.method === 8) {
      const out = inflateRawSync(data);
      if (out.length !== entry.size)
        throw new Error(`zip: ${name} inflated to ${out.length}, not ${entry.size}`);
      return out;
    }
    throw new Error(`zip: ${name} uses compression method ${entry.method}`);
  } finally {
    closeSync(fd);
  }
}
