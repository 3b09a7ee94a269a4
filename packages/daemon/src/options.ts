import { type FeatureGates, parseFeatureGates } from '@kruise/api/feature-gates';
import {
  durationOption,
  listenAddressArgument,
  parseCommandLine,
  programCommand,
} from '@kruise/runtime/cli/command-line';
import { featureGatesFlag } from '@kruise/runtime/cli/feature-gates';
import { CommanderError, InvalidArgumentError } from 'commander';

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

/** An int flag as pflag's `IntVar` reads it (decimal; strconv.ParseInt's words when not). */
const int = (v: string) => {
  if (!/^[+-]?\d+$/.test(v))
    throw new InvalidArgumentError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
};

/** What kruise-daemon runs, for `--help`. */
const DESCRIPTION = `OpenKruise's kruise-daemon: Kruise's agent on a node, over its CRI runtime.
  image puller: pulls the images NodeImages ask for and reports their progress
  ContainerRecreateRequest executor: stops the containers a request names,
    for kubelet to start them again
  containermeta (gate DaemonWatchingPod): records the pods' runtime containers
    and restarts those whose env from metadata changed
    (gate InPlaceUpdateEnvFromMetadata)`;

/** Parses argv; throws a CommanderError with exit code 2 and a clear message on bad input. */
export function parseDaemonOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): DaemonOptions {
  const cmd = programCommand('kruise-daemon', DESCRIPTION)
    .option('--node-name <name>', 'this node (env NODE_NAME)', env.NODE_NAME)
    .option('--kubeconfig <file>', 'kubeconfig file; without it, the in-cluster configuration')
    .option(
      '--runtime-endpoint <endpoint>',
      'CRI socket, e.g. unix:///run/containerd/containerd.sock (found under --host-run-dir when not given)',
    )
    .option(
      '--docker-endpoint <endpoint>',
      'pull through the Docker Engine API at this socket (unix:///var/run/docker.sock) for per-layer progress',
    )
    .option('--host-run-dir <dir>', "where the host's /var/run is mounted", '/hostvarrun')
    .option('--addr <addr>', 'address of /healthz and /metrics', listenAddressArgument, ':10221')
    .option('--max-workers-for-pull-image <n>', 'pulls at once on this node (-1: unlimited)', int, -1)
    .option('--max-workers-per-registry <n>', 'pulls at once from one registry (0: unlimited)', int, 0)
    .addOption(
      durationOption(
        '--status-update-interval <duration>',
        'at most one NodeImage status write per this interval',
        2000,
      ),
    )
    .option(
      '--feature-gates <gates>',
      "comma-separated Gate=bool pairs of Kruise's gates (bool as Go reads it: true, false, 1, 0, t, F, …)",
      '',
    );
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
