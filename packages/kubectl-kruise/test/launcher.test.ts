import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLUGIN_BIN } from './plugin-env.ts';

/**
 * The launcher's choice of Node and entry point, with stand-in `node` programs on a PATH that
 * holds only them and the two tools the launcher uses (readlink, dirname).
 */
const scratch = mkdtempSync(join(tmpdir(), 'kubectl-kruise-launcher-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the launcher at `dir/bin/kubectl-kruise` (a copy, so it resolves to `dir`). */
function install(dir: string): string {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const bin = join(dir, 'bin', 'kubectl-kruise');
  copyFileSync(PLUGIN_BIN, bin);
  chmodSync(bin, 0o755);
  return bin;
}

/** A PATH directory with readlink, dirname and, when given, a `node` answering as `version`. */
function pathWith(name: string, version?: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const tool of ['readlink', 'dirname']) symlinkSync(`/usr/bin/${tool}`, join(dir, tool));
  if (version) {
    const major = Number(version.slice(1).split('.')[0]);
    const minor = Number(version.split('.')[1]);
    const ok = major > 22 || (major === 22 && minor >= 19);
    writeFileSync(
      join(dir, 'node'),
      `#!/bin/sh\ncase "$1" in\n  --version) echo ${version} ;;\n  -e) exit ${ok ? 0 : 1} ;;\n  *) echo "node $*" ;;\nesac\n`,
    );
    chmodSync(join(dir, 'node'), 0o755);
  }
  return dir;
}

const run = (bin: string, path: string) =>
  new Promise<{ code: number; out: string; err: string }>((resolve) =>
    execFile(bin, ['scale', '--replicas=1'], { env: { PATH: path } }, (error, out, err) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }),
    ),
  );

describe('the kubectl-kruise launcher', () => {
  it('runs the compiled plugin with a node >= 22.19 from PATH when no pinned Node is above it', async () => {
    const pkg = join(scratch, 'pkg');
    const r = await run(install(pkg), pathWith('node24', 'v24.3.0'));
    expect(r).toEqual({ code: 0, out: `node ${pkg}/dist/main.js scale --replicas=1\n`, err: '' });
  });

  it('prefers the pinned Node of the install it belongs to, and the sources in a checkout', async () => {
    const root = join(scratch, 'checkout');
    const bin = install(join(root, 'packages', 'kubectl-kruise'));
    mkdirSync(join(root, 'packages', 'kubectl-kruise', 'src'), { recursive: true });
    writeFileSync(join(root, 'packages', 'kubectl-kruise', 'src', 'main.ts'), '');
    mkdirSync(join(root, 'node_modules', 'node', 'bin'), { recursive: true });
    const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
    writeFileSync(pinned, '#!/bin/sh\necho "pinned $*"\n');
    chmodSync(pinned, 0o755);
    const r = await run(bin, pathWith('old-on-path', 'v20.11.0'));
    expect(r.out).toBe(
      `pinned --conditions=source ${root}/packages/kubectl-kruise/src/main.ts scale --replicas=1\n`,
    );
  });

  it('refuses an older Node on PATH, and no Node at all, with a clear error', async () => {
    const bin = install(join(scratch, 'plain'));
    const old = await run(bin, pathWith('node20', 'v20.11.0'));
    expect(old).toEqual({
      code: 1,
      out: '',
      err: `error: kubectl-kruise needs Node.js >= 22.19, found v20.11.0 at ${scratch}/node20/node\n`,
    });
    const none = await run(bin, pathWith('no-node'));
    expect(none).toEqual({
      code: 1,
      out: '',
      err: 'error: kubectl-kruise needs Node.js >= 22.19 and found none on PATH\n',
    });
  });
});
