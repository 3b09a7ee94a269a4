import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEPLOY_FEATURE_GATES } from '@kruise/deploy';
import { type Program, readyOrStop, startProgram } from './program.ts';

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

/** kruise-manager's line once its webhooks serve; it names their port. */
export const MANAGER_READY = /"webhookport":(\d+)/;

/** Spawns kruise-manager for one machine (`localManagerArgs`, then `extraArgs`); does not wait. */
export function spawnManager(
  kubeconfig: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Program {
  return startProgram(
    'kruise-manager',
    'packages/manager/src/main.ts',
    [...localManagerArgs(kubeconfig), ...extraArgs],
    env,
  );
}

/** Starts kruise-manager with its webhooks and metrics on free loopback ports; resolves once they serve. */
export async function startManagerProcess(
  kubeconfig: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ program: Program; webhookPort: number; metricsPort: number }> {
  const program = spawnManager(kubeconfig, extraArgs, env);
  const m = await readyOrStop(program, MANAGER_READY);
  const metrics = /"metricsport":(\d+)/.exec(program.output());
  return { program, webhookPort: Number(m[1]), metricsPort: Number(metrics?.[1] ?? 0) };
}

/** The signature both node programs start with: kubeconfig, node name, CRI endpoint, extra flags. */
type NodeProgramStarter = (
  kubeconfig: string,
  node: string,
  runtimeEndpoint: string,
  extraArgs?: string[],
) => Promise<Program>;

/** Spawns a node program for `node` (does not wait); each node's program logs to `<name>-<node>.log`. */
type NodeProgramSpawner = (
  kubeconfig: string,
  node: string,
  runtimeEndpoint: string,
  extraArgs?: string[],
) => Program;

/** How a node program (kruise-daemon or the local node) is spawned: its flags and its log file. */
function nodeProgramSpawner(name: string, entry: string, fixedArgs: string[] = []): NodeProgramSpawner {
  return (kubeconfig, node, runtimeEndpoint, extraArgs = []) =>
    startProgram(
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
}

/** A starter for a node program that resolves at its ready line (the program is stopped if it does not come). */
function nodeProgram(spawnIt: NodeProgramSpawner, ready: RegExp): NodeProgramStarter {
  return async (kubeconfig, node, runtimeEndpoint, extraArgs = []) => {
    const program = spawnIt(kubeconfig, node, runtimeEndpoint, extraArgs);
    await readyOrStop(program, ready);
    return program;
  };
}

/** kruise-daemon's line once it runs. */
export const DAEMON_READY = /kruise-daemon started/;

/** Spawns kruise-daemon for `node` on a CRI socket (does not wait). */
export const spawnDaemon = nodeProgramSpawner('kruise-daemon', 'packages/daemon/src/main.ts', [
  '--addr=127.0.0.1:0',
]);

/** Starts kruise-daemon for `node` on a CRI socket; resolves once it runs. */
export const startDaemonProcess = nodeProgram(spawnDaemon, DAEMON_READY);

const startLocalNode = nodeProgram(
  nodeProgramSpawner('local-node', 'packages/local-node/src/node/main.ts'),
  /local node ready/,
);

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
