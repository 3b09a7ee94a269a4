import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { VolumeFiles } from './volume-content.ts';

const DATA = '..data';

/** Whether `dir`'s current files are exactly `files` (same paths, bytes and modes). */
function unchanged(dir: string, files: VolumeFiles): boolean {
  const current = join(dir, DATA);
  if (!existsSync(current)) return false;
  const seen: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(current, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path);
      else seen.push(path);
    }
  };
  walk('');
  if (seen.length !== files.size) return false;
  for (const [path, f] of files) {
    const abs = join(current, path);
    if (!existsSync(abs)) return false;
    const st = lstatSync(abs);
    if ((st.mode & 0o777) !== f.mode || !readFileSync(abs).equals(f.data)) return false;
    if (f.uid !== undefined && st.uid !== f.uid) return false;
  }
  return true;
}

/**
 * kubelet's AtomicWriter: the files go into a fresh timestamped directory, `..data` is switched to
 * it with one rename of a symlink, and each top-level name is a symlink through `..data`, so a
 * reader sees the old set or the new one, never a mix. Writes nothing when nothing changed.
 * Returns whether it wrote.
 */
export function writeAtomically(dir: string, files: VolumeFiles): boolean {
  mkdirSync(dir, { recursive: true });
  if (unchanged(dir, files)) return false;
  const stamp = `..${new Date().toISOString().replace(/[:.]/g, '_')}.${process.hrtime.bigint()}`;
  const target = join(dir, stamp);
  mkdirSync(target);
  for (const [path, f] of files) {
    const abs = join(target, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, f.data);
    chmodSync(abs, f.mode);
    if (f.uid !== undefined) chownSync(abs, f.uid, -1);
  }
  const old = existsSync(join(dir, DATA)) ? readlinkSync(join(dir, DATA)) : undefined;
  symlinkSync(stamp, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, DATA));
  const top = new Set([...files.keys()].map((p) => p.split('/')[0]!));
  for (const name of top)
    if (!existsSync(join(dir, name)) || !lstatSync(join(dir, name)).isSymbolicLink())
      symlinkSync(join(DATA, name), join(dir, name));
  for (const name of readdirSync(dir))
    if (!name.startsWith('..') && !top.has(name)) rmSync(join(dir, name), { force: true, recursive: true });
  if (old) rmSync(join(dir, old), { recursive: true, force: true });
  return true;
}
