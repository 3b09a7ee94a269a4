import { durationOption, parseCommandLine, portArgument, programCommand } from '@kruise/runtime';

/** Everything a local node is started with. */
export interface LocalNodeFlags {
  nodeName: string;
  kubeconfig?: string;
  runtimeEndpoint: string;
  hostIP: string;
  /** Extra Node labels (`--label key=value`, repeatable). */
  labels: Record<string, string>;
  /** First crash-loop back-off; doubles up to `backoffMaxMs`. */
  backoffInitialMs: number;
  backoffMaxMs: number;
  podLogsDir?: string;
  kubeletPort: number;
}

/**
 * Parses a local node's argv; `--help` prints the help and throws a CommanderError with exit code
 * 0, bad input throws one with exit code 2 and a one-line message.
 */
export function parseLocalNodeOptions(argv: string[]): LocalNodeFlags {
  const cmd = programCommand(
    'local-node',
    'Registers a Ready Node and runs the pods bound to it through CRI, as kubelet does',
  )
    .requiredOption('--node-name <name>', 'the Node to register')
    .option('--kubeconfig <file>', 'kubeconfig file; without it, the in-cluster configuration')
    .requiredOption(
      '--runtime-endpoint <endpoint>',
      'CRI socket, e.g. unix:///run/containerd/containerd.sock',
    )
    .option('--host-ip <ip>', 'address the node and its host-network pods report', '127.0.0.1')
    .option('--label <key=value...>', 'extra Node labels')
    .addOption(
      durationOption(
        '--restart-backoff <duration>',
        'first crash-loop back-off (doubles up to --max-restart-backoff)',
        10_000,
      ),
    )
    .addOption(durationOption('--max-restart-backoff <duration>', 'longest crash-loop back-off', 300_000))
    .option(
      '--pod-logs-dir <dir>',
      "where the runtime writes container logs, in kubelet's /var/log/pods layout (under the temp dir when not given)",
    )
    .option(
      '--kubelet-port <port>',
      'port of the server that answers kubectl logs on --host-ip (0: any free port)',
      portArgument,
      0,
    );
  parseCommandLine(cmd, argv);
  const o = cmd.opts();
  const labels = Object.fromEntries(
    ((o.label as string[] | undefined) ?? []).map((l) => [
      l.slice(0, l.indexOf('=')),
      l.slice(l.indexOf('=') + 1),
    ]),
  );
  return {
    nodeName: o.nodeName,
    kubeconfig: o.kubeconfig,
    runtimeEndpoint: o.runtimeEndpoint,
    hostIP: o.hostIp,
    labels,
    backoffInitialMs: o.restartBackoff,
    backoffMaxMs: o.maxRestartBackoff,
    podLogsDir: o.podLogsDir,
    kubeletPort: o.kubeletPort,
  };
}
