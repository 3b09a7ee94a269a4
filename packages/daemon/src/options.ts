import { type FeatureGates, parseFeatureGates } from '@kruise/api/feature-gates';
import { featureGatesValue } from '@kruise/runtime/cli/feature-gates';
import { FlagSet } from '@kruise/runtime/cli/flag-set';
import { durationValue, intValue, listenAddressValue, stringValue } from '@kruise/runtime/cli/flag-values';
import { UsageError } from '@kruise/runtime/cli/usage-error';

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

/** What kruise-daemon runs, for `--help`. */
const DESCRIPTION = `OpenKruise's kruise-daemon: Kruise's agent on a node, over its CRI runtime.
  image puller: pulls the images NodeImages ask for and reports their progress
  ContainerRecreateRequest executor: stops the containers a request names,
    for kubelet to start them again
  containermeta (gate DaemonWatchingPod): records the pods' runtime containers
    and restarts those whose env from metadata changed
    (gate InPlaceUpdateEnvFromMetadata)`;

/** Parses argv; throws a UsageError (exit code 2, pflag's words) on bad input, one with exit code 0 for `--help`. */
export function parseDaemonOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): DaemonOptions {
  const o = new FlagSet('kruise-daemon', DESCRIPTION)
    .flag('node-name', stringValue, env.NODE_NAME ?? '', 'this node (env NODE_NAME)')
    .flag('kubeconfig', stringValue, '', 'kubeconfig file; without it, the in-cluster configuration')
    .flag(
      'runtime-endpoint',
      stringValue,
      '',
      'CRI socket, e.g. unix:///run/containerd/containerd.sock (found under --host-run-dir when not given)',
    )
    .flag(
      'docker-endpoint',
      stringValue,
      '',
      'pull through the Docker Engine API at this socket (unix:///var/run/docker.sock) for per-layer progress',
    )
    .flag('host-run-dir', stringValue, '/hostvarrun', "where the host's /var/run is mounted")
    .flag('addr', listenAddressValue, ':10221', 'address of /healthz and /metrics')
    .flag('max-workers-for-pull-image', intValue, -1, 'pulls at once on this node (-1: unlimited)')
    .flag('max-workers-per-registry', intValue, 0, 'pulls at once from one registry (0: unlimited)')
    .flag(
      'status-update-interval',
      durationValue,
      2000,
      'at most one NodeImage status write per this interval',
    )
    .flag(
      'feature-gates',
      featureGatesValue(parseFeatureGates),
      '',
      "comma-separated Gate=bool pairs of Kruise's gates (bool as Go reads it: true, false, 1, 0, t, F, …)",
    )
    .parse(argv);
  if (!o['node-name']) throw new UsageError(2, '--node-name (or env NODE_NAME) is required');
  return {
    nodeName: o['node-name'],
    kubeconfig: o.kubeconfig || undefined,
    runtimeEndpoint: o['runtime-endpoint'] || undefined,
    dockerEndpoint: o['docker-endpoint'] || undefined,
    hostRunDir: o['host-run-dir'],
    addr: o.addr,
    maxWorkersForPullImage: o['max-workers-for-pull-image'],
    maxWorkersPerRegistry: o['max-workers-per-registry'],
    statusUpdateIntervalMs: o['status-update-interval'],
    configNamespace: env.KRUISE_DAEMON_CONFIG_NS ?? 'kruise-daemon-config',
    featureGates: parseFeatureGates(o['feature-gates']),
  };
}
