import { CriClient } from '@kruise/cri/client';
import {
  connectOrExit,
  createLogger,
  durationArgument,
  parseCommandLine,
  portArgument,
  shutdownOnSignals,
} from '@kruise/runtime';
import { Command, CommanderError } from 'commander';
import { LocalNode } from './local-node.ts';

/**
 * `pnpm run local-node -- --node-name N --kubeconfig F --runtime-endpoint unix:///…`: one local
 * node (kubelet's part) on a CRI runtime. Prints a JSON line `local node ready` once its Node is
 * Ready; stops on SIGTERM/SIGINT, leaving running containers as they are.
 */
async function main(): Promise<void> {
  const cmd = new Command('local-node')
    .description('Registers a Ready Node and runs the pods bound to it through CRI, as kubelet does')
    .requiredOption('--node-name <name>', 'the Node to register')
    .option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster configuration)')
    .requiredOption(
      '--runtime-endpoint <endpoint>',
      'CRI socket, e.g. unix:///run/containerd/containerd.sock',
    )
    .option('--host-ip <ip>', 'address the node and its host-network pods report', '127.0.0.1')
    .option('--label <key=value...>', 'extra Node labels')
    .option(
      '--restart-backoff <duration>',
      'first crash-loop back-off (doubles up to --max-restart-backoff)',
      durationArgument,
      10_000,
    )
    .option('--max-restart-backoff <duration>', 'longest crash-loop back-off', durationArgument, 300_000)
    .option(
      '--pod-logs-dir <dir>',
      "where the runtime writes container logs, in kubelet's /var/log/pods layout (default: under the temp dir)",
    )
    .option(
      '--kubelet-port <port>',
      'port of the server that answers kubectl logs on --host-ip (0: any free port)',
      portArgument('--kubelet-port'),
      0,
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    parseCommandLine(
      cmd,
      process.argv.slice(2).filter((a) => a !== '--'),
    );
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    throw err;
  }
  const o = cmd.opts();
  const labels = Object.fromEntries(
    ((o.label as string[] | undefined) ?? []).map((l) => [
      l.slice(0, l.indexOf('=')),
      l.slice(l.indexOf('=') + 1),
    ]),
  );
  const client = await connectOrExit(o.kubeconfig);
  const log = createLogger({ name: 'local-node' });
  const cri = new CriClient(o.runtimeEndpoint);
  const node = new LocalNode({
    client,
    cri,
    nodeName: o.nodeName,
    hostIP: o.hostIp,
    labels,
    podLogsDir: o.podLogsDir,
    kubeletPort: o.kubeletPort,
    backoffInitialMs: o.restartBackoff,
    backoffMaxMs: o.maxRestartBackoff,
    logger: log,
  });
  let started = false;
  shutdownOnSignals(async () => {
    if (started) await node.stop();
    cri.close();
  }, log);
  try {
    await node.start();
    started = true;
  } catch (err) {
    process.stderr.write(`local node could not start: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

await main();
