import { type FeatureGates, parseFeatureGates } from '@kruise/api/feature-gates';
import { durationArgument, listenAddressArgument, parseCommandLine } from '@kruise/runtime/cli/command-line';
import { featureGatesFlag } from '@kruise/runtime/cli/feature-gates';
import { Command, CommanderError, InvalidArgumentError } from 'commander';

/** Everything kruise-daemon is started with. */
export interface DaemonOptions {
  nodeName: string;
  kubeconfig?: string;
  runtimeEndpoint?: string;
  dockerEndpoint?: string;
  hostRunDir: string;
  addr: string;
  maxWorkersForPullImage: number;
  maxWorkersPerRegistry: number;
  statusUpdateIntervalMs: number;
  configNamespace: string;
  /** `--feature-gates` over upstream's defaults (the daemon reads DaemonWatchingPod and InPlaceUpdateEnvFromMetadata). */
  featureGates: FeatureGates;
}

const int = (name: string) => (v: string) => {
  if (!/^-?\d+$/.test(v)) throw new InvalidArgumentError(`${name} must be an integer`);
  return Number(v);
};

/** Parses argv; throws a CommanderError with exit code 2 and a clear message on bad input. */
export function parseDaemonOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): DaemonOptions {
  const cmd = new Command('kruise-daemon')
    .description('Pulls images and recreates containers on this node for OpenKruise')
    .option('--node-name <name>', 'this node (env NODE_NAME)', env.NODE_NAME)
    .option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster configuration)')
    .option(
      '--runtime-endpoint <endpoint>',
      'CRI socket, e.g. unix:///run/containerd/containerd.sock (default: discover under --host-run-dir)',
    )
    .option(
      '--docker-endpoint <endpoint>',
      'pull through the Docker Engine API at this socket (unix:///var/run/docker.sock) for per-layer progress',
    )
    .option('--host-run-dir <dir>', "where the host's /var/run is mounted", '/hostvarrun')
    .option('--addr <addr>', 'address of /healthz and /metrics', listenAddressArgument('--addr'), ':10221')
    .option(
      '--max-workers-for-pull-image <n>',
      'pulls at once on this node (-1: unlimited)',
      int('--max-workers-for-pull-image'),
      -1,
    )
    .option(
      '--max-workers-per-registry <n>',
      'pulls at once from one registry (0: unlimited)',
      int('--max-workers-per-registry'),
      0,
    )
    .option(
      '--status-update-interval <duration>',
      'at most one NodeImage status write per this interval',
      durationArgument,
      2000,
    )
    .option('--feature-gates <gates>', "comma-separated Gate=true|false pairs (Kruise's gates)", '')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  parseCommandLine(cmd, argv);
  const o = cmd.opts();
  if (!o.nodeName)
    throw new CommanderError(2, 'kruise.nodeName', 'error: --node-name (or env NODE_NAME) is required');
  const featureGates = featureGatesFlag(o.featureGates, parseFeatureGates);
  return {
    nodeName: o.nodeName,
    kubeconfig: o.kubeconfig,
    runtimeEndpoint: o.runtimeEndpoint,
    dockerEndpoint: o.dockerEndpoint,
    hostRunDir: o.hostRunDir,
    addr: o.addr,
    maxWorkersForPullImage: o.maxWorkersForPullImage,
    maxWorkersPerRegistry: o.maxWorkersPerRegistry,
    statusUpdateIntervalMs: o.statusUpdateInterval,
    configNamespace: env.KRUISE_DAEMON_CONFIG_NS ?? 'kruise-daemon-config',
    featureGates,
  };
}
