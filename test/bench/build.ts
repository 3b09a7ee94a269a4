import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const SCOPE = '@kruise/';

/** The workspace packages `pkg` depends on, dependencies first, then `pkg` itself (directory names). */
function buildOrder(pkg: string, out: string[] = []): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'));
  for (const dep of Object.keys(manifest.dependencies ?? {}))
    if (dep.startsWith(SCOPE)) buildOrder(dep.slice(SCOPE.length), out);
  if (!out.includes(pkg)) out.push(pkg);
  return out;
}

/**
 * Compiles a package and every workspace package it depends on to `dist/` (what the Dockerfiles
 * ship), so a benchmark measures the built JavaScript, never a stale `dist/` of a dependency.
 */
export function buildPackage(pkg: string): void {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  for (const p of buildOrder(pkg))
    execFileSync(process.execPath, [tsc, '-p', join(root, `packages/${p}/tsconfig.build.json`)]);
}
