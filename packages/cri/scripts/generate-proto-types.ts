import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Regenerates the TypeScript types of proto/ into `outDir` (default src/generated) with
 * proto-loader-gen-types, then gives relative imports their `.ts` extension (ESM needs them).
 */
export function generateProtoTypes(outDir: string): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
  const require = createRequire(import.meta.url);
  const tool = join(
    dirname(require.resolve('@grpc/proto-loader/package.json')),
    'build/bin/proto-loader-gen-types.js',
  );
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      tool,
      'cri/api.proto',
      'containerd/content.proto',
      '--longs',
      'String',
      '--enums',
      'String',
      '--defaults',
      '--oneofs',
      '--grpcLib',
      '@grpc/grpc-js',
      '--outDir',
      outDir,
      '-I',
      join(root, 'proto'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8')
          .replace(/from '(\.{1,2}\/[^']+)'/g, "from '$1.ts'")
          .replace(/^\/\/ Original file: .*\/proto\//gm, '// Original file: proto/');
        writeFileSync(path, text);
      }
    }
  };
  walk(outDir);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = join(dirname(fileURLToPath(import.meta.url)), '../src/generated');
  generateProtoTypes(out);
  console.log(`wrote ${out}`);
}
