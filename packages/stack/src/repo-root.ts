import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory (this file is packages/stack/src/repo-root.ts). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
