import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@kruise/stack/free-port';
import { repoRoot } from '@kruise/stack/repo-root';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Bad numbers, durations and ports on the command line of each program, run as users run them:
 * each exits 2 before doing anything, with one line on stderr naming the flag's problem (no stack
 * trace). The flags each program needs to get that far are given good values.
 */
const programs = {
  'kruise-manager': { entry: 'packages/manager/src/main.ts', needs: [] as string[] },
  'kruise-daemon': {
    entry: 'packages/daemon/src/main.ts',
    needs: ['--node-name=n', '--kubeconfig=/nonexistent/kubeconfig'],
  },
  'local node': {
    entry: 'packages/local-node/src/node/main.ts',
    needs: [
      '--node-name=n',
      '--kubeconfig=/nonexistent/kubeconfig',
      '--runtime-endpoint=unix:///nonexistent.sock',
    ],
  },
  'pnpm start': { entry: 'packages/stack/src/main.ts', needs: ['--state-dir=/nonexistent/state'] },
};
type ProgramName = keyof typeof programs;

const cases: [ProgramName, string, string][] = [
  // ports
  ['kruise-manager', '--webhook-port=70000', '--webhook-port must be a port number'],
  ['kruise-manager', '--webhook-port=1e3', '--webhook-port must be a port number'],
  ['kruise-manager', '--webhook-port=-1', '--webhook-port must be a port number'],
  ['kruise-manager', '--metrics-addr=:99999', '--metrics-addr must be a listen address'],
  ['kruise-manager', '--health-probe-addr=127.0.0.1:http', '--health-probe-addr must be a listen address'],
  ['kruise-daemon', '--addr=:65536', '--addr must be a listen address'],
  ['kruise-daemon', '--addr=localhost:1.5', '--addr must be a listen address'],
  ['local node', '--kubelet-port=65536', '--kubelet-port must be a port number'],
  ['local node', '--kubelet-port=abc', '--kubelet-port must be a port number'],
  ['pnpm start', '--registry-port=0x50', '--registry-port must be a port number'],
  ['pnpm start', '--registry-port=70000', '--registry-port must be a port number'],
  ['pnpm start', '--nodes=0', '--nodes: must be a whole number from 1 to 26, not "0"'],
  ['pnpm start', '--nodes=1.5', '--nodes: must be a whole number from 1 to 26, not "1.5"'],
  // feature gates: the shared parser's words in every program that takes them
  ['kruise-manager', '--feature-gates=NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'],
  ['kruise-daemon', '--feature-gates=NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'],
  [
    'pnpm start',
    '--feature-gates=NoSuchGate=true',
    "invalid argument for '--feature-gates': unrecognized feature gate: NoSuchGate",
  ],
  [
    'pnpm start',
    '--feature-gates=PreDownloadImageForInPlaceUpdate=yes',
    "invalid argument for '--feature-gates'",
  ],
  // numbers
  ['kruise-manager', '--imagepulljob-workers=0', '--imagepulljob-workers must be a positive integer'],
  ['kruise-manager', '--crr-workers=2.5', '--crr-workers must be a positive integer'],
  ['kruise-manager', '--nodeimage-workers=many', '--nodeimage-workers must be a positive integer'],
  ['kruise-manager', '--default-ttlseconds-for-always-nodeimage=-1', 'must be between 0 and 2678400'],
  ['kruise-daemon', '--max-workers-for-pull-image=two', '--max-workers-for-pull-image must be an integer'],
  ['kruise-daemon', '--max-workers-per-registry=1.5', '--max-workers-per-registry must be an integer'],
  // durations
  ['kruise-manager', '--nodeimage-creation-delay=30', 'invalid duration "30"'],
  ['kruise-manager', '--nodeimage-creation-delay=soon', 'invalid duration "soon"'],
  ['kruise-daemon', '--status-update-interval=2', 'invalid duration "2"'],
  ['kruise-daemon', '--status-update-interval=1d', 'invalid duration "1d"'],
  ['local node', '--restart-backoff=10', 'invalid duration "10"'],
  ['local node', '--max-restart-backoff=5x', 'invalid duration "5x"'],
  // unknown flags
  ['kruise-manager', '--no-such-flag', "unknown option '--no-such-flag'"],
  ['kruise-daemon', '--no-such-flag', "unknown option '--no-such-flag'"],
  ['local node', '--no-such-flag', "unknown option '--no-such-flag'"],
  ['pnpm start', '--no-such-flag', "unknown option '--no-such-flag'"],
];

/** Runs `program` with `args` (after the flags it needs unless `needs` is given); its exit code, stdout and stderr. */
function run(
  program: ProgramName,
  args: string[],
  needs = programs[program].needs,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; out: string; err: string }> {
  const { entry } = programs[program];
  const child = spawn(process.execPath, ['--conditions=source', join(repoRoot, entry), ...needs, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  // 'close', not 'exit': the last output may still be in the pipes when the process exits.
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
}

type Result = Awaited<ReturnType<typeof run>>;

/** Exactly this one line on stderr. */
const line = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`);

/** Runs the jobs a few at a time (each is a Node process start); their results in order. */
async function inPool<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await jobs[i]!();
      }
    }),
  );
  return results;
}

describe('command-line flags', () => {
  it('are refused with exit code 2 and a message naming the problem', async () => {
    const results = await inPool(
      cases.map(
        ([program, flag]) =>
          () =>
            run(program, [flag]),
      ),
    );
    const wrong: string[] = [];
    for (const [i, [program, flag, message]] of cases.entries()) {
      const r = results[i]!;
      const ok = r.code === 2 && r.err.includes(message) && !/\n\s+at /.test(r.err);
      if (!ok)
        wrong.push(`${program} ${flag}: exit ${r.code}, stderr ${JSON.stringify(r.err.slice(0, 300))}`);
    }
    expect(wrong).toEqual([]);
  }, 240_000);
});

describe('start-up without a usable kubeconfig or API server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** What each program needs besides a kubeconfig to get as far as connecting (the local node shares the code). */
  const needs: Partial<Record<ProgramName, string[]>> = {
    'kruise-manager': [],
    'kruise-daemon': ['--node-name=n'],
  };

  it("exit 1 with one line in kubectl's words, no stack trace", async () => {
    const port = await freePort(); // nothing listens there
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const refused = file(
      'refused',
      JSON.stringify({
        'current-context': 'c',
        contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
        clusters: [{ name: 'k', cluster: { server: `https://127.0.0.1:${port}` } }],
        users: [{ name: 'u', user: { token: 't' } }],
      }),
    );
    const broken = file('broken', 'clusters: [\n  - a: : b\n');
    const empty = file('empty', '');
    const otherContext = file('other-context', JSON.stringify({ 'current-context': 'other', contexts: [] }));
    const noServer = file(
      'no-server',
      JSON.stringify({
        'current-context': 'c',
        contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
        clusters: [{ name: 'k', cluster: {} }],
      }),
    );
    const { KUBERNETES_SERVICE_HOST: _h, KUBERNETES_SERVICE_PORT: _p, ...outside } = process.env;
    const startups: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [
        [`--kubeconfig=${dir}/missing`],
        process.env,
        line(`error: stat ${dir}/missing: no such file or directory`),
      ],
      [
        [`--kubeconfig=${dir}`],
        process.env,
        line(`error: error loading config file "${dir}": read ${dir}: is a directory`),
      ],
      [
        [`--kubeconfig=${broken}`],
        process.env,
        new RegExp(`^error: error loading config file "${broken}": .+\n$`),
      ],
      [
        [`--kubeconfig=${empty}`],
        process.env,
        line('error: invalid configuration: no configuration has been provided'),
      ],
      [
        [`--kubeconfig=${refused}`],
        process.env,
        line(
          `The connection to the server 127.0.0.1:${port} was refused - did you specify the right host or port?`,
        ),
      ],
      [
        [`--kubeconfig=${otherContext}`],
        process.env,
        line('Error in configuration: context was not found for specified context: other'),
      ],
      [
        [`--kubeconfig=${noServer}`],
        process.env,
        line('error: invalid configuration: no server found for cluster "k"'),
      ],
      [
        [],
        outside,
        /^error: invalid configuration: no configuration has been provided, try --kubeconfig .+\n$/,
      ],
    ];
    const jobs = Object.entries(needs).flatMap(([program, args]) =>
      startups.map(([kubeconfig, env, expected]) => async () => {
        const r = await run(program as ProgramName, kubeconfig, args, env);
        return { what: `${program} ${kubeconfig.join(' ') || '(none)'}`, r, expected };
      }),
    );
    const wrong: string[] = [];
    for (const { what, r, expected } of await inPool<{ what: string; r: Result; expected: RegExp }>(jobs))
      if (r.code !== 1 || !expected.test(r.err))
        wrong.push(`${what}: exit ${r.code}, stderr ${JSON.stringify(r.err.slice(0, 300))}`);
    expect(wrong).toEqual([]);
  }, 240_000);
});
