import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient } from '@kruise/runtime';
import { installKruiseApi, pointWebhookService } from './cluster-bootstrap.ts';
import { runExamples } from './examples.ts';
import { parseStackFlags } from './flags.ts';
import { freePort } from './free-port.ts';
import {
  type RunRecord,
  removeRunRecord,
  settleEarlierRun,
  WATCHDOG_ENTRY,
  writeRunRecord,
} from './leftovers.ts';
import { type NodeRuntime, nodeNameOf, startNodeRuntime, ZONE_LABEL, zoneOf } from './node-runtimes.ts';
import { type Program, writeProgramLogsTo } from './program.ts';
import {
  DAEMON_READY,
  MANAGER_READY,
  spawnDaemon,
  spawnManager,
  startLocalNodeProcess,
} from './program-recipes.ts';
import { repoRoot } from './repo-root.ts';
import { type RuntimeStack, runtimePrerequisites, startRuntimeStack } from './runtime-stack.ts';
import { startSupervised } from './supervisor.ts';

/**
 * `pnpm start`: the whole system on one machine — a local registry with sample images and
 * containerd (installed from Debian when missing), the embedded control plane, kruise-manager, one
 * local node with kruise-daemon, and examples/ with their progress. Without root or the packages it
 * says what is missing and runs the control plane and kruise-manager. Ctrl-C stops everything it
 * started, by PID. What it starts is recorded in STATE_DIR/run.json; a watchdog in a session of its
 * own stops it if this process is killed, and the next start stops what a killed run left.
 */
const flags = parseStackFlags(process.argv.slice(2));
const say = (line: string) => console.log(`[kruise] ${line}`);
const { stateDir, nodeName: node, nodes: nodeCount } = flags;
const kubeconfig = join(stateDir, 'kubeconfig');
// A run that is still going owns this state directory; what an earlier run left (a run still
// stopping, the watchdog of a killed one cleaning up after it, its programs) is waited for or
// stopped by PID before its logs are cleared. Whatever fails here is said in one line.
try {
  mkdirSync(stateDir, { recursive: true });
  await settleEarlierRun(stateDir, say);
  rmSync(join(stateDir, 'logs'), { recursive: true, force: true, maxRetries: 5 });
  writeProgramLogsTo(join(stateDir, 'logs'));
} catch (err) {
  say(`could not start: ${(err as Error).message}`);
  process.exit(1);
}
const record: RunRecord = { pid: process.pid, runtimeDirs: [], programs: [] };
writeRunRecord(stateDir, record);
const watchdog = spawn(process.execPath, ['--conditions=source', join(repoRoot, WATCHDOG_ENTRY), stateDir], {
  detached: true,
  stdio: ['pipe', 'ignore', 'ignore'],
});
watchdog.unref();
(watchdog.stdin as unknown as { unref(): void }).unref();
record.watchdog = watchdog.pid;
writeRunRecord(stateDir, record);
/** Records a program this run started (for the watchdog and the next start). */
const started = (program: Program, entry: string) => {
  programs.push(program);
  record.programs.push({ name: program.name, pid: program.child.pid!, entry });
  writeRunRecord(stateDir, record);
};
/**
 * Supervises a program as kubelet supervises a pod's container (its back-off), so that one that
 * exits — a kruise-manager that lost its Lease, a crash — runs again; each new PID is recorded.
 */
const supervised = async (label: string, entry: string, spawnIt: () => Program, ready: RegExp) => {
  let entryIndex = -1;
  const { program, ready: match } = await startSupervised(spawnIt, ready, {
    onExit: (_instance, result) => {
      if (!stopping) say(`${label} exited (${result}); starting it again after kubelet's back-off`);
    },
    onRestart: (instance) => {
      record.programs[entryIndex] = { name: instance.name, pid: instance.child.pid!, entry };
      writeRunRecord(stateDir, record);
      say(`${label} running again (pid ${instance.child.pid})`);
    },
  });
  started(program, entry);
  entryIndex = record.programs.length - 1;
  return { program, match };
};
/** Records a runtime directory before cri-stack.sh starts anything under it. */
const runtimeUnder = (dir: string) => {
  record.runtimeDirs.push(dir);
  writeRunRecord(stateDir, record);
  return dir;
};

const programs: Program[] = [];
let runtime: RuntimeStack | undefined;
const nodeRuntimes: NodeRuntime[] = [];
let cp: ControlPlane | undefined;
const abort = new AbortController();
let stopping = false;
const stop = async (code = 0) => {
  if (stopping) return;
  stopping = true;
  abort.abort();
  say('stopping');
  // the next start waits for this run to finish stopping instead of refusing to start
  record.stopping = true;
  writeRunRecord(stateDir, record);
  for (const p of [...programs].reverse()) await p.stop();
  try {
    for (const r of nodeRuntimes) r.down();
    runtime?.down();
  } catch (err) {
    say(`could not stop containerd and the registry: ${(err as Error).message}`);
    code ||= 1;
  }
  await cp?.stop();
  removeRunRecord(stateDir);
  watchdog.stdin?.end('stopped\n');
  say('stopped');
  process.exit(code);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

try {
  const problems = runtimePrerequisites();
  if (problems.length === 0) {
    try {
      runtime = startRuntimeStack(runtimeUnder(flags.runtimeDir), flags.registryPort, say);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length) {
    say(`containerd, the local node and kruise-daemon cannot run here: ${problems.join('; ')}`);
    say('running the control plane and kruise-manager only');
  }
  // Each start begins with an empty cluster.
  rmSync(join(stateDir, 'control-plane'), { recursive: true, force: true });
  cp = await ControlPlane.start({ dataDir: join(stateDir, 'control-plane') });
  cp.writeKubeconfig(kubeconfig);
  const client = KubeClient.fromString(cp.kubeconfig());
  await installKruiseApi(client);
  const gates = flags.featureGates ? [`--feature-gates=${flags.featureGates}`] : [];
  // A fixed webhook port, so that a restarted kruise-manager serves where the Service points.
  const webhookPort = await freePort();
  const { program: manager } = await supervised(
    'kruise-manager',
    'packages/manager/src/main.ts',
    () =>
      spawnManager(kubeconfig, ['--nodeimage-creation-delay=0s', `--webhook-port=${webhookPort}`, ...gates]),
    MANAGER_READY,
  );
  await pointWebhookService(client, webhookPort);
  say(
    `control plane at ${cp.url}; kruise-manager running (pid ${manager.child.pid}, webhooks on 127.0.0.1:${webhookPort})`,
  );
  if (runtime) {
    for (let i = 0; i < nodeCount; i++) {
      const name = nodeNameOf(node, i);
      let socket = runtime.socket;
      if (i > 0) {
        const extra = startNodeRuntime(runtimeUnder(`${flags.runtimeDir}-n${i + 1}`), flags.registryPort);
        nodeRuntimes.push(extra);
        socket = extra.socket;
      }
      const endpoint = `unix://${socket}`;
      const localNode = await startLocalNodeProcess(kubeconfig, name, endpoint, [
        `--pod-logs-dir=${join(flags.runtimeDir, i === 0 ? 'pod-logs' : `pod-logs-${name}`)}`,
        `--label=${ZONE_LABEL}=${zoneOf(i)}`,
      ]);
      started(localNode, 'packages/local-node/src/node/main.ts');
      const { program: daemon } = await supervised(
        `kruise-daemon on ${name}`,
        'packages/daemon/src/main.ts',
        () => spawnDaemon(kubeconfig, name, endpoint, gates),
        DAEMON_READY,
      );
      say(
        `local node ${name} (${zoneOf(i)}) running (pid ${localNode.child.pid}) on containerd ${socket}; kruise-daemon running (pid ${daemon.child.pid}); registry ${runtime.registry}`,
      );
    }
  }
  say(`ready — try:
  export KUBECONFIG=${kubeconfig}
  export PATH=${join(repoRoot, 'packages/kubectl-kruise/bin')}:$PATH   # kubectl kruise …
  kubectl get nodes,pods -o wide
  kubectl get nodeimages,imagepulljobs,imagelistpulljobs,crr -A
  kubectl get nodeimage ${node} -o yaml
  kubectl logs demo -c app
  kubectl apply -f examples/
  logs: ${join(stateDir, 'logs')}/{kruise-manager,local-node-<node>,kruise-daemon-<node>}.log   (Ctrl-C stops everything)`);
  if (runtime && !flags.noExamples) {
    const done = await runExamples(client, runtime.registry, node, (l) => say(l), abort.signal, flags.nodes);
    if (done) say('examples complete');
  }
} catch (err) {
  say(`could not start: ${(err as Error).message}`);
  await stop(1);
}
