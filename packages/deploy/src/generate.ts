import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChartFiles } from './chart.ts';
import { renderDeployFiles } from './render.ts';

/** `pnpm generate` (part): writes the cluster install under deploy/ and the Helm chart under charts/kruise. */
const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
rmSync(join(root, 'charts/kruise'), { recursive: true, force: true });
for (const [path, text] of [...renderDeployFiles(), ...renderChartFiles()]) {
  if (path.startsWith('deploy/crds/')) continue;
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  console.log(`wrote ${path}`);
}
