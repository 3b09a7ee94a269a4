import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@kruise/control-plane';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The Dockerfiles as a user with Docker Hub runs them (on node:24-slim, their ARGs' defaults), fast
 * and without Docker: this test runs each Dockerfile's steps outside Docker — the build stage's RUN
 * lines in a copy of the repository, the final stage's COPY/ENV — then starts the resulting bundle
 * through its ENTRYPOINT. It knows only the instructions the two Dockerfiles use and fails on any
 * other, so it cannot silently skip one. test/e2e/images.test.ts builds the real images, on the
 * offline base of ADR 0061.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'dockerfile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Step {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  steps: Step[];
}

/**
 * Parses a Dockerfile into stages (comments and line continuations handled); a FROM's `${NAME}` takes
 * the default of an ARG before the first FROM, as `docker build` with no --build-arg does.
 */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const globalArgs = new Map<string, string>();
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [op, ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op === 'ARG' && stages.length === 0) {
      const m = /^(\w+)=(\S+)$/.exec(args);
      if (!m) throw new Error(`ARG ${args} has no default`);
      globalArgs.set(m[1]!, m[2]!);
    } else if (op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      const from = m[1]!.replace(/\$\{(\w+)\}/g, (_s, name: string) => {
        const value = globalArgs.get(name);
        if (value === undefined) throw new Error(`FROM names \${${name}}, which no ARG declares`);
        return value;
      });
      stages.push({ from, ...(m[2] ? { name: m[2] } : {}), steps: [] });
    } else if (['WORKDIR', 'COPY', 'RUN', 'ENV', 'USER', 'EXPOSE', 'ENTRYPOINT'].includes(op!)) {
      stages.at(-1)!.steps.push({ op: op!, args });
    } else throw new Error(`instruction ${op} is not understood by this test`);
  }
  return stages;
}

/** Runs a Dockerfile's stages with the image filesystem mapped under `base`; returns the final stage's entrypoint, env and user. */
function runDockerfile(file: string, base: string) {
  const stages = parseDockerfile(readFileSync(join(root, file), 'utf8'));
  const fsOf = new Map<string, string>();
  let result: { entrypoint: string[]; env: Record<string, string>; user?: string } | undefined;
  for (const [i, stage] of stages.entries()) {
    expect(stage.from).toBe('node:24-slim');
    const fsRoot = join(base, `stage${i}`);
    mkdirSync(fsRoot, { recursive: true });
    if (stage.name) fsOf.set(stage.name, fsRoot);
    const inImage = (p: string) => join(fsRoot, p);
    const env: Record<string, string> = {};
    let cwd = fsRoot;
    let user: string | undefined;
    let entrypoint: string[] = [];
    const mapPaths = (s: string) =>
      s.replace(/(^|\s)\/(out|src|app)\b/g, (_m, pre, dir) => `${pre}${inImage(dir)}`);
    for (const { op, args } of stage.steps) {
      if (op === 'WORKDIR') {
        cwd = inImage(args);
        mkdirSync(cwd, { recursive: true });
      } else if (op === 'COPY') {
        const from = /^--from=(\S+)\s+/.exec(args);
        const [src, dest] = args.replace(/^--from=\S+\s+/, '').split(/\s+/) as [string, string];
        const target = dest.startsWith('/') ? inImage(dest) : join(cwd, dest);
        if (from) {
          cpSync(join(fsOf.get(from[1]!)!, src), target, { recursive: true, verbatimSymlinks: true });
        } else {
          expect(src).toBe('.');
          const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
            cwd: root,
            encoding: 'utf8',
          })
            .split('\n')
            .filter((f) => f && existsSync(join(root, f)));
          for (const f of tracked) {
            mkdirSync(dirname(join(target, f)), { recursive: true });
            cpSync(join(root, f), join(target, f));
          }
        }
      } else if (op === 'RUN') {
        const run = spawnSync('bash', ['-c', mapPaths(args)], {
          cwd,
          encoding: 'utf8',
          env: { ...process.env, ...env },
        });
        expect(run.status, `RUN ${args}\n${run.stdout}\n${run.stderr}`).toBe(0);
      } else if (op === 'ENV') {
        for (const m of args.matchAll(/(\w+)=(\S+)/g)) env[m[1]!] = mapPaths(m[2]!);
      } else if (op === 'USER') user = args;
      else if (op === 'ENTRYPOINT') entrypoint = JSON.parse(args).map((a: string) => mapPaths(a));
    }
    result = { entrypoint, env, ...(user ? { user } : {}) };
  }
  return result!;
}

/** Starts an entrypoint with this machine's Node 24 in place of the image's `node`. */
function start(entrypoint: string[], env: Record<string, string>, args: string[]) {
  const [node, ...rest] = entrypoint;
  expect(node).toBe('node');
  return spawnSync(process.execPath, [...rest, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
}

/** `start`, without blocking this process (an API server in it must answer the program). */
function startAsync(entrypoint: string[], env: Record<string, string>, args: string[]) {
  const [, ...rest] = entrypoint;
  return new Promise<{ status: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...rest, ...args],
      { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 },
      (err, _stdout, stderr) =>
        resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
    );
  });
}

describe('Dockerfiles (their steps, run outside Docker)', () => {
  it('Dockerfile.manager builds a production bundle that runs as non-root and answers --help', () => {
    const out = join(work, 'manager');
    const { entrypoint, env, user } = runDockerfile('Dockerfile.manager', out);
    expect(user).toBe('65534:65534');
    const app = join(out, 'stage1/app');
    expect(existsSync(join(app, 'node_modules/@kruise/runtime/dist/index.js'))).toBe(true);
    for (const dev of ['vitest', 'typescript', '@kruise/control-plane', '@biomejs/biome'])
      expect(existsSync(join(app, 'node_modules', dev)), `${dev} is a dev dependency`).toBe(false);
    expect(existsSync(join(app, 'src')), 'sources are not shipped').toBe(false);
    const help = start(entrypoint, env, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage of kruise-manager:');
  }, 300_000);

  it('Dockerfile.daemon builds a bundle with the protos that answers --help and loads its CRI client', async () => {
    const out = join(work, 'daemon');
    const { entrypoint, env, user } = runDockerfile('Dockerfile.daemon', out);
    expect(user).toBeUndefined();
    expect(entrypoint.slice(0, 2)).toEqual(['node', '--jitless']);
    const help = start(entrypoint, env, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage of kruise-daemon:');
    // The daemon checks its API server first: give it one, so what stops it is the runtime.
    const cp = await ControlPlane.start();
    try {
      const kubeconfig = join(work, 'kubeconfig');
      writeFileSync(kubeconfig, cp.kubeconfig());
      const noRuntime = await startAsync(entrypoint, env, [
        '--node-name=n',
        `--kubeconfig=${kubeconfig}`,
        `--runtime-endpoint=unix://${join(work, 'absent.sock')}`,
        '--addr=127.0.0.1:0',
      ]);
      expect(noRuntime.status).toBe(1);
      expect(noRuntime.stderr).not.toContain('proto/ not found');
      expect(noRuntime.stderr).toContain('absent.sock');
    } finally {
      await cp.stop();
    }
  }, 300_000);
});
