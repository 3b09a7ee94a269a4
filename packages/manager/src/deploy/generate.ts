import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderManagerFiles } from './render.ts';

/** Writes kruise-manager's generated deploy/ files. */
const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
for (const [path, text] of renderManagerFiles()) {
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${path}`);
}
