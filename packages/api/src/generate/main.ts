import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCrdFiles } from './crd-files.ts';

/** Writes every generated file under the repository root. */
const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
for (const [path, text] of renderCrdFiles()) {
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${path}`);
}
