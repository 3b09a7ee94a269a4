import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDeployFiles } from './render.ts';

/** `pnpm generate` (part): writes the cluster install under deploy/. */
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
for (const [path, text] of renderDeployFiles()) {
  if (path.startsWith('deploy/crds/')) continue;
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${path}`);
}
