import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository's top-level files a Dockerfile's build reads (besides the Dockerfile itself). */
const ROOT_FILES = [
  'package.json',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  '.npmrc',
  '.dockerignore',
  'tsconfig.base.json',
  'tsconfig.json',
];

/** Directories under packages/<name>/ and names anywhere that no image holds or builds from. */
const SKIPPED = new Set(['node_modules', 'dist', 'test', '.kruise', 'coverage']);

function filesUnder(dir: string, out: string[]): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of entries.sort()) {
    if (SKIPPED.has(name) || name.endsWith('.log')) continue;
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) filesUnder(path, out);
    else if (st.isFile()) out.push(path);
  }
}

/**
 * A digest of what an image built from `dockerfile` in `root` depends on: the Dockerfile, the
 * workspace's manifests and lockfile, proto/, every package's sources (not its tests) and the
 * `extra` files (the base image's recipe, the Node.js binary). Docs, tests and examples change no
 * image, so they change no key. Hex, 64 characters.
 */
export function imageSourceKey(root: string, dockerfile: string, extra: readonly string[] = []): string {
  const files = [join(root, dockerfile), ...ROOT_FILES.map((f) => join(root, f))];
  filesUnder(join(root, 'proto'), files);
  filesUnder(join(root, 'packages'), files);
  const hash = createHash('sha256');
  for (const file of [...files, ...extra]) {
    let content: Buffer;
    try {
      content = readFileSync(file);
    } catch {
      continue; // an optional top-level file (e.g. .npmrc) that this checkout does not have
    }
    const name = file.startsWith(root) ? relative(root, file) : file;
    hash.update(`${name}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}
