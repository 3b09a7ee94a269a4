import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient } from '@kruise/runtime';
import { runExamples } from './examples.ts';
import { type NodeRuntime, nodeNameOf, startNodeRuntime, ZONE_LABEL, zoneOf } from './node-runtimes.ts';
import {
  installKruiseApi,
  type Program,
  pointWebhookService,
  repoRoot,
  startDaemonProcess,
  startLocalNodeProcess,
  startManagerProcess,
  writeProgramLogsTo,
} from './processes.ts';
import { type RuntimeStack, runtimePrerequisites, startRuntimeStack } from './runtime-stack.ts';

/**
 * `pnpm start`: the whole system on one machine — a local registry with sample images and
 * containerd (installed from Debian when missing), the embedded control plane, kruise-manager, one
 * local node with kruise-daemon, and examples/ with their progress. Without root or the packages it
 * says what is missing and runs the control plane and kruise-manager. Ctrl-C stops everything it
 * started, by PID.
 */
const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    'state-dir': { type: 'string', default: join(repoRoot, '.kruise') },
    'no-examples': { type: 'boolean', default: false },
    'node-name': { type: 'string', default: 'kruise-local' },
    'registry-port': { type: 'string', default: '5000' },
    'runtime-dir': { type: 'string', default: '/tmp/kruise-stack' },
    nodes: { type: 'string', default: '1' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(`usage: pnpm start [-- options]
  --no-examples          do not apply examples/
  --state-dir DIR        kubeconfig and API server data (default .kruise/)
  --node-name NAME       the local node (default kruise-local)
  --registry-port PORT   the local registry on 127.0.0.1 (default 5000)
  --runtime-dir DIR      containerd and registry state, kept short for unix sockets (default /tmp/kruise-stack)
  --nodes N              local nodes (default 1): NAME, NAME-2 … in zones zone-a, zone-b …, each with
                         kruise-daemon and a containerd of its own (DIR-n2 …)`);
  process.exit(0);
}
const say = (line: string) => console.log(`[kruise] ${line}`);
const nodeCount = Number(flags.nodes);
if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > 26) {
  console.error(`--nodes: must be a whole number from 1 to 26, not "${flags.nodes}"`);
  process.exit(2);
}
const stateDir = flags['state-dir'];
const node = flags['node-name'];
const kubeconfig = join(stateDir, 'kubeconfig');
mkdirSync(stateDir, { recursive: true });
rmSync(join(stateDir, 'logs'), { recursive: true, force: true });
writeProgramLogsTo(join(stateDir, 'logs'));

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
  for (const p of [...programs].reverse()) await p.stop();
  try {
    for (const r of nodeRuntimes) r.down();
    runtime?.down();
  } catch (err) {
    say(`could not stop containerd and the registry: ${(err as Error).message}`);
    code ||= 1;
  }
  await cp?.stop();
  say('stopped');
  process.exit(code);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

try {
  const problems = runtimePrerequisites();
  if (problems.length === 0) {
    try {
      runtime = startRuntimeStack(flags['runtime-dir'], Number(flags['registry-port']), say);
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
  const { program: manager, webhookPort } = await startManagerProcess(kubeconfig, [
    '--nodeimage-creation-delay=0s',
  ]);
  programs.push(manager);
  await pointWebhookService(client, webhookPort);
  say(
    `control plane at ${cp.url}; kruise-manager running (pid ${manager.child.pid}, webhooks on 127.0.0.1:${webhookPort})`,
  );
  if (runtime) {
    for (let i = 0; i < nodeCount; i++) {
      const name = nodeNameOf(node, i);
      let socket = runtime.socket;
      if (i > 0) {
        const extra = startNodeRuntime(`${flags['runtime-dir']}-n${i + 1}`, Number(flags['registry-port']));
        nodeRuntimes.push(extra);
        socket = extra.socket;
      }
      const endpoint = `unix://${socket}`;
      const localNode = await startLocalNodeProcess(kubeconfig, name, endpoint, [
        `--pod-logs-dir=${join(flags['runtime-dir'], i === 0 ? 'pod-logs' : `pod-logs-${name}`)}`,
        `--label=${ZONE_LABEL}=${zoneOf(i)}`,
      ]);
      programs.push(localNode);
      const daemon = await startDaemonProcess(kubeconfig, name, endpoint);
      programs.push(daemon);
      say(
        `local node ${name} (${zoneOf(i)}) running (pid ${localNode.child.pid}) on containerd ${socket}; kruise-daemon running (pid ${daemon.child.pid}); registry ${runtime.registry}`,
      );
    }
  }
  say(`ready — try:
  export KUBECONFIG=${kubeconfig}
  kubectl get nodes,pods -o wide
  kubectl get nodeimages,imagepulljobs,imagelistpulljobs,crr -A
  kubectl get nodeimage ${node} -o yaml
  kubectl logs demo -c app
  kubectl apply -f examples/
  logs: ${join(stateDir, 'logs')}/{kruise-manager,kruise-daemon,local-node}.log   (Ctrl-C stops everything)`);
  if (runtime && !flags['no-examples']) {
    const done = await runExamples(client, runtime.registry, node, (l) => say(l), abort.signal);
    if (done) say('examples complete');
  }
} catch (err) {
  say(`could not start: ${(err as Error).message}`);
  await stop(1);
}
