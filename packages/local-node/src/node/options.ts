import {
  durationValue,
  FlagSet,
  portValue,
  stringArrayValue,
  stringValue,
  UsageError,
} from '@kruise/runtime';

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
  /** Host directories this node keeps elsewhere (`--host-path /var/run=/dir`, repeatable). */
  hostPaths: Record<string, string>;
}

/**
 * Parses a local node's argv; throws a UsageError with exit code 0 and the help for `--help`, one
 * with exit code 2 and a one-line message for bad input.
 */
export function parseLocalNodeOptions(argv: string[]): LocalNodeFlags {
  const o = new FlagSet(
    'local-node',
    'Registers a Ready Node and runs the pods bound to it through CRI, as kubelet does',
  )
    .flag('node-name', stringValue, '', 'the Node to register', { required: true })
    .flag('kubeconfig', stringValue, '', 'kubeconfig file; without it, the in-cluster configuration')
    .flag('runtime-endpoint', stringValue, '', 'CRI socket, e.g. unix:///run/containerd/containerd.sock', {
      required: true,
    })
    .flag('host-ip', stringValue, '127.0.0.1', 'address the node and its host-network pods report')
    .flag('label', stringArrayValue, [], 'extra Node label key=value (repeatable)')
    .flag(
      'restart-backoff',
      durationValue,
      10_000,
      'first crash-loop back-off (doubles up to --max-restart-backoff)',
    )
    .flag('max-restart-backoff', durationValue, 300_000, 'longest crash-loop back-off')
    .flag(
      'pod-logs-dir',
      stringValue,
      '',
      "where the runtime writes container logs, in kubelet's /var/log/pods layout (under the temp dir when not given)",
    )
    .flag(
      'kubelet-port',
      portValue,
      0,
      'port of the server that answers kubectl logs on --host-ip (0: any free port)',
    )
    .flag(
      'host-path',
      stringArrayValue,
      [],
      'a host directory this node keeps elsewhere, host=dir (repeatable): hostPath volumes at or under host mount dir, e.g. /var/run=<dir of the CRI socket>',
    )
    .parse(argv);
  const pairs = (list: string[]) =>
    Object.fromEntries(list.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const labels = pairs(o.label);
  const badHostPath = o['host-path'].find((h) => !/^\/[^=]*=\/./.test(h));
  if (badHostPath !== undefined)
    throw new UsageError(
      2,
      `invalid argument "${badHostPath}" for "--host-path" flag: must be <host directory>=<directory>, both absolute`,
    );
  return {
    nodeName: o['node-name'],
    kubeconfig: o.kubeconfig || undefined,
    runtimeEndpoint: o['runtime-endpoint'],
    hostIP: o['host-ip'],
    labels,
    backoffInitialMs: o['restart-backoff'],
    backoffMaxMs: o['max-restart-backoff'],
    podLogsDir: o['pod-logs-dir'] || undefined,
    kubeletPort: o['kubelet-port'],
    hostPaths: pairs(o['host-path']),
  };
}
