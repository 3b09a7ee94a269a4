import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@kruise/stack/free-port';
import { repoRoot } from '@kruise/stack/repo-root';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Bad numbers, durations, booleans, feature gates and ports on the command line of each program,
 * run as users run them: each exits 2 before doing anything, with exactly one line on stderr in
 * pflag's words (`error: invalid argument "V" for "--flag" flag: …`). The flags each program needs
 * to get that far are given good values.
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

/** What pflag says of a flag's bad value. */
const invalid = (flag: string, value: string, why: string) =>
  `error: invalid argument "${value}" for "${flag}" flag: ${why}`;
const PORT = 'must be a port number from 0 to 65535';
const ADDRESS = 'must be a listen address (host:port, :port, or 0 to disable)';

const cases: [ProgramName, string, string][] = [
  // ports
  ['kruise-manager', '--webhook-port=70000', invalid('--webhook-port', '70000', PORT)],
  ['kruise-manager', '--webhook-port=1e3', invalid('--webhook-port', '1e3', PORT)],
  ['kruise-manager', '--webhook-port=-1', invalid('--webhook-port', '-1', PORT)],
  ['kruise-manager', '--metrics-addr=:99999', invalid('--metrics-addr', ':99999', ADDRESS)],
  [
    'kruise-manager',
    '--health-probe-addr=127.0.0.1:http',
    invalid('--health-probe-addr', '127.0.0.1:http', ADDRESS),
  ],
  ['kruise-daemon', '--addr=:65536', invalid('--addr', ':65536', ADDRESS)],
  ['kruise-daemon', '--addr=localhost:1.5', invalid('--addr', 'localhost:1.5', ADDRESS)],
  ['local node', '--kubelet-port=65536', invalid('--kubelet-port', '65536', PORT)],
  ['local node', '--kubelet-port=abc', invalid('--kubelet-port', 'abc', PORT)],
  [
    'local node',
    '--host-path=/var/run',
    invalid('--host-path', '/var/run', 'must be <host directory>=<directory>, both absolute'),
  ],
  ['pnpm start', '--registry-port=0x50', invalid('--registry-port', '0x50', PORT)],
  ['pnpm start', '--registry-port=70000', invalid('--registry-port', '70000', PORT)],
  ['pnpm start', '--nodes=0', invalid('--nodes', '0', 'must be a whole number from 1 to 26')],
  ['pnpm start', '--nodes=1.5', invalid('--nodes', '1.5', 'must be a whole number from 1 to 26')],
  // feature gates: component-base's words in every program that takes them
  ...(['kruise-manager', 'kruise-daemon', 'pnpm start'] as const).flatMap((program) => [
    [
      program,
      '--feature-gates=NoSuchGate=true',
      invalid('--feature-gates', 'NoSuchGate=true', 'unrecognized feature gate: NoSuchGate'),
    ] as [ProgramName, string, string],
    [
      program,
      '--feature-gates=PreDownloadImageForInPlaceUpdate=yes',
      invalid(
        '--feature-gates',
        'PreDownloadImageForInPlaceUpdate=yes',
        'invalid value of PreDownloadImageForInPlaceUpdate=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
      ),
    ] as [ProgramName, string, string],
    [
      program,
      '--feature-gates=CloneSetShortHash',
      invalid('--feature-gates', 'CloneSetShortHash', 'missing bool value for CloneSetShortHash'),
    ] as [ProgramName, string, string],
  ]),
  // booleans: Go's strconv.ParseBool
  [
    'kruise-manager',
    '--enable-leader-election=maybe',
    invalid('--enable-leader-election', 'maybe', 'strconv.ParseBool: parsing "maybe": invalid syntax'),
  ],
  // numbers
  [
    'kruise-manager',
    '--imagepulljob-workers=0',
    invalid('--imagepulljob-workers', '0', 'must be a positive integer'),
  ],
  ['kruise-manager', '--crr-workers=2.5', invalid('--crr-workers', '2.5', 'must be a positive integer')],
  [
    'kruise-manager',
    '--nodeimage-workers=many',
    invalid('--nodeimage-workers', 'many', 'must be a positive integer'),
  ],
  [
    'kruise-manager',
    '--default-ttlseconds-for-always-nodeimage=-1',
    invalid('--default-ttlseconds-for-always-nodeimage', '-1', 'must be between 0 and 2678400'),
  ],
  [
    'kruise-daemon',
    '--max-workers-for-pull-image=two',
    invalid('--max-workers-for-pull-image', 'two', 'strconv.ParseInt: parsing "two": invalid syntax'),
  ],
  [
    'kruise-daemon',
    '--max-workers-per-registry=1.5',
    invalid('--max-workers-per-registry', '1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'),
  ],
  // durations: Go's time.ParseDuration
  [
    'kruise-manager',
    '--expectation-timeout=300000',
    invalid('--expectation-timeout', '300000', 'time: missing unit in duration "300000"'),
  ],
  [
    'kruise-manager',
    '--nodeimage-creation-delay=soon',
    invalid('--nodeimage-creation-delay', 'soon', 'time: invalid duration "soon"'),
  ],
  [
    'kruise-manager',
    '--leader-election-lease-duration=15',
    invalid('--leader-election-lease-duration', '15', 'time: missing unit in duration "15"'),
  ],
  [
    'kruise-daemon',
    '--status-update-interval=1d',
    invalid('--status-update-interval', '1d', 'time: unknown unit "d" in duration "1d"'),
  ],
  [
    'local node',
    '--restart-backoff=10',
    invalid('--restart-backoff', '10', 'time: missing unit in duration "10"'),
  ],
  [
    'local node',
    '--max-restart-backoff=5x',
    invalid('--max-restart-backoff', '5x', 'time: unknown unit "x" in duration "5x"'),
  ],
  [
    'kruise-manager',
    '--sync-period=1000h',
    invalid('--sync-period', '1000h', 'must be at most 596h31m23.647s (the longest timer Node.js sets)'),
  ],
  // client-go's words for the lock types it no longer has
  [
    'kruise-manager',
    '--leader-election-resource-lock=configmaps',
    invalid(
      '--leader-election-resource-lock',
      'configmaps',
      'configmaps lock is removed, migrate to configmapsleases (using version v0.27.x)',
    ),
  ],
  // unknown flags, missing values, required flags
  ...(Object.keys(programs) as ProgramName[]).map(
    (program) =>
      [program, '--no-such-flag', 'error: unknown flag: --no-such-flag'] as [ProgramName, string, string],
  ),
  ['kruise-manager', '--kubeconfig', 'error: flag needs an argument: --kubeconfig'],
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
      if (r.code !== 2 || r.err !== `${message}\n`)
        wrong.push(`${program} ${flag}: exit ${r.code}, stderr ${JSON.stringify(r.err.slice(0, 300))}`);
    }
    expect(wrong).toEqual([]);
  }, 240_000);
});

/**
 * The flags of a `--help` (pflag's layout: `      --flag type   usage (default x)`) that print a
 * default, with that default as a user would type it back: continuation lines joined, a quoted
 * default unquoted.
 */
function helpDefaults(help: string): [flag: string, value: string][] {
  const entries = help
    .slice(help.indexOf('\nUsage of '))
    .split(/\n(?= {6}--)/)
    .map((e) => e.replace(/\s*\n\s*/g, ' ').trim());
  const found: [string, string][] = [];
  for (const entry of entries) {
    const m = /^(--[\w-]+).*\(default (.*)\)$/.exec(entry);
    if (m) found.push([m[1]!, m[2]!.startsWith('"') ? JSON.parse(m[2]!) : m[2]!]);
  }
  return found;
}

/** The help's flag lines: `      --flag[ type]`, at least three spaces, the usage (further lines indented). */
const PFLAG_USAGES =
  /^[^\n][\s\S]*\n\nUsage of [^\n]+:\n( {6}--[\w-]+( \w+)? {3,}\S[^\n]*\n( +\S[^\n]*\n)*)+$/;

describe('--help', () => {
  it('of every program (pnpm start too) has one layout, and every default it prints is accepted when passed back', async () => {
    const names = Object.keys(programs) as ProgramName[];
    const helps = await inPool(names.map((program) => () => run(program, ['--help'], [])));
    const defaults = new Map<ProgramName, [string, string][]>();
    for (const [i, program] of names.entries()) {
      const h = helps[i]!;
      expect({ code: h.code, err: h.err }, program).toEqual({ code: 0, err: '' });
      expect(h.out, program).toMatch(PFLAG_USAGES);
      defaults.set(program, helpDefaults(h.out));
    }
    // durations print as Go prints them (pflag's defaults), never as milliseconds
    expect(defaults.get('kruise-manager')).toEqual(
      expect.arrayContaining([
        ['--expectation-timeout', '5m0s'],
        ['--nodeimage-creation-delay', '30s'],
        ['--leader-election-lease-duration', '15s'],
        ['--controller-cache-sync-timeout', '2m0s'],
        ['--sync-period', '10h0m0s'],
        ['--leader-election-resource-lock', 'leases'],
        ['--enable-leader-election', 'true'],
      ]),
    );
    expect(defaults.get('kruise-daemon')).toContainEqual(['--status-update-interval', '2s']);
    expect(defaults.get('local node')).toContainEqual(['--max-restart-backoff', '5m0s']);
    // Passed back, every default is accepted: each program goes on to what comes after parsing —
    // connecting (the kubeconfig is missing), or for pnpm start making its state directory (a file).
    const after: Record<ProgramName, RegExp> = {
      'kruise-manager': /^error: stat \/nonexistent\/kubeconfig: no such file or directory\n$/,
      'kruise-daemon': /^error: stat \/nonexistent\/kubeconfig: no such file or directory\n$/,
      'local node': /^error: stat \/nonexistent\/kubeconfig: no such file or directory\n$/,
      'pnpm start': /^$/,
    };
    const extra: Record<ProgramName, string[]> = {
      'kruise-manager': ['--kubeconfig=/nonexistent/kubeconfig'],
      'kruise-daemon': [],
      'local node': [],
      'pnpm start': ['--state-dir=/dev/null'],
    };
    const results = await inPool(
      names.map(
        (program) => () =>
          run(program, [
            ...defaults.get(program)!.map(([flag, value]) => `${flag}=${value}`),
            ...extra[program],
          ]),
      ),
    );
    for (const [i, program] of names.entries()) {
      const r = results[i]!;
      expect({ code: r.code, err: r.err }, program).toEqual({
        code: 1,
        err: expect.stringMatching(after[program]),
      });
    }
    expect(results[names.indexOf('pnpm start')]!.out).toBe(
      "[kruise] could not start: EEXIST: file already exists, mkdir '/dev/null'\n",
    );
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
