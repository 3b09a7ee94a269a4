import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEPLOY_FEATURE_GATES, namespaces } from '@kruise/deploy';
import { parseFeatureGates, webhookConfigurations } from '@kruise/manager';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { parse } from 'yaml';

/** The repository root. */
import { repoRoot } from './repo-root.ts';

export { repoRoot };

/** A program of ours running as a child process, stopped by its PID. */
export interface Program {
  name: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in its output (rejects if it exits first or after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<number | string | null>;
}

let logDir: string | undefined;

/** Also writes every program's output to `<dir>/<name>.log` from now on (the local stack's logs). */
export function writeProgramLogsTo(dir: string): void {
  mkdirSync(dir, { recursive: true });
  logDir = dir;
}

/** How a program is started, beyond its entry, arguments and environment. */
export interface StartOptions {
  uid?: number;
  gid?: number;
  /** A process group of its own (a terminal's job, which Ctrl-C signals as a whole). */
  detached?: boolean;
  /**
   * A command that execs the program (its argv is appended), e.g. one that switches user or mount
   * namespace first; it must exec, not fork, so the program keeps the child's PID.
   */
  launcher?: string[];
  /** Where the program sees the repository (a bind mount of it), if not at `repoRoot`. */
  root?: string;
  /** Its log file's name (without `.log`) in the stack's log directory; its `name` by default. */
  logName?: string;
}

/**
 * Starts one of our TypeScript entry points on this Node (`process.execPath`, which forwards
 * signals, unlike `node_modules/.bin/node`), with sources resolved through the `source` condition.
 * A program that cannot be spawned at all fails its waiters at once with the reason.
 */
export function startProgram(
  name: string,
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: StartOptions = {},
): Program {
  const { launcher = [], root = repoRoot, logName = name, ...spawnOptions } = options;
  const execPath = process.execPath.startsWith(`${repoRoot}/`)
    ? join(root, process.execPath.slice(repoRoot.length))
    : process.execPath;
  const argv = [...launcher, execPath, '--conditions=source', join(root, entry), ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    ...spawnOptions,
  });
  return watchProgram(name, child, logName);
}

/**
 * A Program over a child process spawned with stdout and stderr piped: its output (also written to
 * `<logName>.log` in the stack's log directory when set), waiting for a line, stopping by PID. A
 * child that could not be spawned at all fails its waiters at once with the reason.
 */
export function watchProgram(name: string, child: ChildProcess, logName = name): Program {
  const argv0 = child.spawnfile;
  let spawnError: Error | undefined;
  let out = '';
  const waiters: (() => void)[] = [];
  const file = logDir ? createWriteStream(join(logDir, `${logName}.log`), { flags: 'a' }) : undefined;
  const onData = (c: Buffer) => {
    file?.write(c);
    out += c.toString();
    if (out.length > 4_000_000) out = out.slice(-2_000_000);
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  // 'exit' can come before the last output is read: the program counts as ended once its pipes
  // close too (or a second after exit, should a grandchild hold them open).
  let ended = false;
  const exited = new Promise<number | string | null>((r) => {
    child.once('exit', (code, signal) => {
      const end = () => {
        if (ended) return;
        ended = true;
        r(code ?? signal);
      };
      child.once('close', end);
      setTimeout(end, 1_000).unref();
    });
    // No 'exit' follows a failed spawn: settle with the reason, and wake the waiters now.
    child.once('error', (err) => {
      if (child.pid !== undefined) return;
      spawnError = err;
      out += `cannot start ${argv0}: ${err.message}\n`;
      for (const w of waiters.splice(0)) w();
      r(err.message);
    });
  });
  return {
    name,
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${name}: no ${pattern} in ${timeoutMs} ms:\n${out.slice(-3000)}`)),
          timeoutMs,
        );
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          } else if (spawnError) {
            clearTimeout(timer);
            reject(new Error(`${name} could not start: ${spawnError.message}`));
          } else if (ended) {
            clearTimeout(timer);
            reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${out.slice(-3000)}`));
          } else waiters.push(check);
        };
        check();
        void exited.then(() => waiters.includes(check) && check());
      });
    },
    async stop(graceMs = 15_000) {
      if (spawnError) return spawnError.message;
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/**
 * Waits for `pattern` in a program's output; if it does not come (timeout, exit, failed spawn) the
 * program is stopped by its PID before the error is rethrown, so no half-started program is left
 * running behind a failed start.
 */
export async function readyOrStop(
  program: Program,
  pattern: RegExp,
  timeoutMs?: number,
): Promise<RegExpExecArray> {
  try {
    return await program.waitFor(pattern, timeoutMs);
  } catch (err) {
    await program.stop();
    throw err;
  }
}

const ignoreExists = async (create: () => Promise<unknown>) => {
  try {
    await create();
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
};

/**
 * Applies what a cluster install puts in place before kruise-manager starts: the CRDs, the
 * `kruise-system` and `kruise-daemon-config` namespaces, both webhook configurations (for
 * deploy/'s feature gates by default) and the webhook Service (idempotent).
 */
export async function installKruiseApi(client: KubeClient, gates = DEPLOY_FEATURE_GATES): Promise<void> {
  for (const file of readdirSync(join(repoRoot, 'deploy/crds')).sort()) {
    const crd = parse(readFileSync(join(repoRoot, 'deploy/crds', file), 'utf8'));
    await ignoreExists(() =>
      client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }),
    );
  }
  for (const ns of namespaces())
    await ignoreExists(() => client.create(Resources.Namespace, ns as KubeObject));
  const configs = webhookConfigurations(parseFeatureGates(gates));
  await ignoreExists(() => client.create(Resources.MutatingWebhookConfiguration, configs.mutating));
  await ignoreExists(() => client.create(Resources.ValidatingWebhookConfiguration, configs.validating));
  await ignoreExists(() =>
    client.create(Resources.Service, {
      metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
      spec: { ports: [{ port: 443, targetPort: 9876 }] },
    }),
  );
}

/**
 * Creates manifests in order (`kubectl apply` of fresh objects): the path comes from each object's
 * apiVersion and kind (plural = lower-case kind + "s", true of every kind in deploy/). Objects
 * that exist already are left as they are.
 */
export async function applyManifests(client: KubeClient, objects: any[]): Promise<void> {
  for (const obj of objects) {
    if (!obj) continue;
    const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
    const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const ns = obj.metadata?.namespace ? `/namespaces/${obj.metadata.namespace}` : '';
    await ignoreExists(() =>
      client.request('POST', `${base}${ns}/${obj.kind.toLowerCase()}s`, { body: obj }),
    );
  }
}

/** Points `kruise-webhook-service` at a webhook server on 127.0.0.1 (there is no kube-proxy here). */
export async function pointWebhookService(client: KubeClient, port: number): Promise<void> {
  const subsets = [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }];
  try {
    await client.create(Resources.Endpoints, {
      metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
      subsets,
    });
  } catch {
    const current = await client.get(Resources.Endpoints, 'kruise-system', 'kruise-webhook-service');
    await client.update(Resources.Endpoints, { ...current, subsets });
  }
}

/**
 * kruise-manager's flags for one machine: every server on 127.0.0.1 with a free port, no leader
 * election, deploy/'s feature gates.
 */
export function localManagerArgs(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    '--metrics-addr=127.0.0.1:0',
    '--health-probe-addr=127.0.0.1:0',
    '--webhook-host=127.0.0.1',
    '--webhook-port=0',
    '--enable-leader-election=false',
    `--feature-gates=${DEPLOY_FEATURE_GATES}`,
  ];
}

/** Starts kruise-manager with its webhooks on a free loopback port; resolves once they serve. */
export async function startManagerProcess(
  kubeconfig: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ program: Program; webhookPort: number }> {
  const program = startProgram(
    'kruise-manager',
    'packages/manager/src/main.ts',
    [...localManagerArgs(kubeconfig), ...extraArgs],
    env,
  );
  const m = await readyOrStop(program, /"webhookport":(\d+)/);
  return { program, webhookPort: Number(m[1]) };
}

/** The signature both node programs start with: kubeconfig, node name, CRI endpoint, extra flags. */
type NodeProgramStarter = (
  kubeconfig: string,
  node: string,
  runtimeEndpoint: string,
  extraArgs?: string[],
) => Promise<Program>;

/**
 * A starter for a node program (kruise-daemon or the local node) that resolves at its ready line.
 * Each node's program logs to a file of its own, `<name>-<node>.log`.
 */
function nodeProgram(
  name: string,
  entry: string,
  ready: RegExp,
  fixedArgs: string[] = [],
): NodeProgramStarter {
  return async (kubeconfig, node, runtimeEndpoint, extraArgs = []) => {
    const program = startProgram(
      name,
      entry,
      [
        `--node-name=${node}`,
        `--kubeconfig=${kubeconfig}`,
        `--runtime-endpoint=${runtimeEndpoint}`,
        ...fixedArgs,
        ...extraArgs,
      ],
      {},
      { logName: `${name}-${node}` },
    );
    await readyOrStop(program, ready);
    return program;
  };
}

/** Starts kruise-daemon for `node` on a CRI socket; resolves once it runs. */
export const startDaemonProcess = nodeProgram(
  'kruise-daemon',
  'packages/daemon/src/main.ts',
  /kruise-daemon started/,
  ['--addr=127.0.0.1:0'],
);

const startLocalNode = nodeProgram('local-node', 'packages/local-node/src/node/main.ts', /local node ready/);

/**
 * Starts a local node (kubelet's part) for `node` on a CRI socket; resolves once its Node is Ready.
 * Without `--pod-logs-dir` its container logs go to a temporary directory removed when it stops
 * (pods still running then would otherwise leave their logs behind).
 */
export const startLocalNodeProcess: NodeProgramStarter = async (
  kubeconfig,
  node,
  endpoint,
  extraArgs = [],
) => {
  if (extraArgs.some((a) => a.startsWith('--pod-logs-dir')))
    return startLocalNode(kubeconfig, node, endpoint, extraArgs);
  const logs = mkdtempSync(join(tmpdir(), 'kruise-pod-logs-'));
  let program: Program;
  try {
    program = await startLocalNode(kubeconfig, node, endpoint, [`--pod-logs-dir=${logs}`, ...extraArgs]);
  } catch (err) {
    rmSync(logs, { recursive: true, force: true });
    throw err;
  }
  const stop = program.stop.bind(program);
  program.stop = async (graceMs) => {
    const result = await stop(graceMs);
    rmSync(logs, { recursive: true, force: true });
    return result;
  };
  return program;
};
