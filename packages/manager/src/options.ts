import { type FeatureGates, parseFeatureGates } from '@kruise/api';
import {
  durationArgument,
  featureGatesFlag,
  listenAddressArgument,
  parseCommandLine,
  portArgument,
} from '@kruise/runtime';
import { Command, InvalidArgumentError, Option } from 'commander';

/** Everything kruise-manager is started with. */
export interface ManagerOptions {
  kubeconfig?: string;
  metricsAddr: string;
  healthProbeAddr: string;
  webhookPort: number;
  webhookHost: string;
  webhookServiceName: string;
  webhookServiceNamespace: string;
  enableLeaderElection: boolean;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  /** How long non-leaders wait before they take a lease that was not renewed (default 15 s). */
  leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it gives up and exits (default 10 s). */
  renewDeadlineMs: number;
  /** How often candidates try to take or renew the lease (default 2 s). */
  retryPeriodMs: number;
  /** How long informers may take to list before start-up fails (default 2 min). */
  cacheSyncTimeoutMs: number;
  featureGates: FeatureGates;
  nodeImageCreationDelayMs: number;
  defaultTtlSecondsForAlwaysNodeImage: number;
  imagePullJobWorkers: number;
  imageListPullJobWorkers: number;
  nodeImageWorkers: number;
  crrWorkers: number;
  cloneSetWorkers: number;
  /** PreparingDelete pods do not count when CloneSets scale (every CloneSet, not just labelled ones). */
  cloneSetScalingExcludePreparingDelete: boolean;
  /** Workload expectations unsatisfied this long are dropped (upstream's --expectation-timeout). */
  expectationTimeoutMs: number;
  daemonConfigNamespace: string;
}

const positiveInt = (name: string) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return Number(v);
};

const bool = (v: string) => {
  if (v !== 'true' && v !== 'false') throw new InvalidArgumentError(`must be true or false`);
  return v === 'true';
};

/** The command-line interface; `parse` throws a CommanderError (exit code 2) for bad input. */
export function buildCommand(): Command {
  return new Command('kruise-manager')
    .description(
      'OpenKruise controllers and admission webhooks for NodeImage, ImagePullJob, ImageListPullJob and ContainerRecreateRequest',
    )
    .option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster configuration)')
    .option(
      '--metrics-addr <addr>',
      'address the metrics endpoint binds to (0 disables it)',
      listenAddressArgument('--metrics-addr'),
      ':8080',
    )
    .option(
      '--health-probe-addr <addr>',
      'address the health probes bind to (0 disables them)',
      listenAddressArgument('--health-probe-addr'),
      ':8000',
    )
    .option(
      '--webhook-port <port>',
      'port the webhook server listens on (0 picks a free one)',
      portArgument('--webhook-port'),
      Number(process.env.WEBHOOK_PORT ?? 9876),
    )
    .option('--webhook-host <host>', 'address the webhook server binds to (all interfaces when empty)', '')
    .option(
      '--webhook-service-name <name>',
      'Service in front of the webhook server',
      'kruise-webhook-service',
    )
    .option(
      '--webhook-service-namespace <ns>',
      'namespace of that Service (env POD_NAMESPACE)',
      process.env.POD_NAMESPACE ?? 'kruise-system',
    )
    .addOption(
      new Option('--enable-leader-election [bool]', 'elect one active replica through a Lease')
        .default(true)
        .argParser(bool),
    )
    .option(
      '--leader-election-namespace <ns>',
      'namespace of the leader election Lease',
      process.env.POD_NAMESPACE ?? 'kruise-system',
    )
    .option('--leader-election-id <name>', 'name of the leader election Lease', 'kruise-manager')
    .option(
      '--leader-election-lease-duration <duration>',
      'how long non-leader candidates wait after the last observed renewal before they take the lease',
      durationArgument,
      15_000,
    )
    .option(
      '--leader-election-renew-deadline <duration>',
      'how long the leader retries renewing the lease before it gives up (and exits)',
      durationArgument,
      10_000,
    )
    .option(
      '--leader-election-retry-period <duration>',
      'how long candidates wait between attempts to take or renew the lease',
      durationArgument,
      2_000,
    )
    .option(
      '--controller-cache-sync-timeout <duration>',
      'how long informers may take to list before start-up fails',
      durationArgument,
      120_000,
    )
    .option('--feature-gates <gates>', 'comma-separated Gate=true|false pairs', '')
    .option(
      '--nodeimage-creation-delay <duration>',
      'how long a Node must be Ready before it gets a NodeImage',
      durationArgument,
      30_000,
    )
    .option(
      '--default-ttlseconds-for-always-nodeimage <seconds>',
      'extra TTL of NodeImage tags made by Always jobs (0..2678400)',
      (v: string) => {
        if (!/^\d+$/.test(v) || Number(v) > 31 * 24 * 3600)
          throw new InvalidArgumentError('must be between 0 and 2678400');
        return Number(v);
      },
      300,
    )
    .option(
      '--imagepulljob-workers <n>',
      'workers of the ImagePullJob controller',
      positiveInt('--imagepulljob-workers'),
      3,
    )
    .option(
      '--imagelistpulljob-workers <n>',
      'workers of the ImageListPullJob controller',
      positiveInt('--imagelistpulljob-workers'),
      3,
    )
    .option(
      '--nodeimage-workers <n>',
      'workers of the NodeImage controller',
      positiveInt('--nodeimage-workers'),
      3,
    )
    .option(
      '--crr-workers <n>',
      'workers of the ContainerRecreateRequest controller',
      positiveInt('--crr-workers'),
      3,
    )
    .option(
      '--cloneset-workers <n>',
      'workers of the CloneSet controller',
      positiveInt('--cloneset-workers'),
      3,
    )
    .addOption(
      new Option(
        '--cloneset-scaling-exclude-preparing-delete [bool]',
        'leave PreparingDelete pods out when CloneSets count pods to scale',
      )
        .default(false)
        .argParser(bool),
    )
    .option(
      '--expectation-timeout <duration>',
      'how long a workload waits for its cache to show its own writes before it goes on',
      durationArgument,
      5 * 60_000,
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
}

/** Parses argv into options; throws a CommanderError (exitCode 2) with a clear message on bad input. */
export function parseOptions(argv: string[]): ManagerOptions {
  const cmd = buildCommand();
  parseCommandLine(cmd, argv);
  const o = cmd.opts();
  const featureGates = featureGatesFlag(o.featureGates, parseFeatureGates);
  return {
    kubeconfig: o.kubeconfig,
    metricsAddr: o.metricsAddr,
    healthProbeAddr: o.healthProbeAddr,
    webhookPort: o.webhookPort,
    webhookHost: o.webhookHost,
    webhookServiceName: o.webhookServiceName,
    webhookServiceNamespace: o.webhookServiceNamespace,
    enableLeaderElection: o.enableLeaderElection,
    leaderElectionNamespace: o.leaderElectionNamespace,
    leaderElectionId: o.leaderElectionId,
    leaseDurationMs: o.leaderElectionLeaseDuration,
    renewDeadlineMs: o.leaderElectionRenewDeadline,
    retryPeriodMs: o.leaderElectionRetryPeriod,
    cacheSyncTimeoutMs: o.controllerCacheSyncTimeout,
    featureGates,
    nodeImageCreationDelayMs: o.nodeimageCreationDelay,
    defaultTtlSecondsForAlwaysNodeImage: o.defaultTtlsecondsForAlwaysNodeimage,
    imagePullJobWorkers: o.imagepulljobWorkers,
    imageListPullJobWorkers: o.imagelistpulljobWorkers,
    nodeImageWorkers: o.nodeimageWorkers,
    crrWorkers: o.crrWorkers,
    cloneSetWorkers: o.clonesetWorkers,
    cloneSetScalingExcludePreparingDelete: o.clonesetScalingExcludePreparingDelete,
    expectationTimeoutMs: o.expectationTimeout,
    daemonConfigNamespace: process.env.KRUISE_DAEMON_CONFIG_NS ?? 'kruise-daemon-config',
  };
}

/** Knobs tests turn (defaults are upstream's). */
export interface AppTuning {
  /** A NodeImage tag never reported is failed after this long (default 10 min). */
  responseTimeoutMs?: number;
  /** A ContainerRecreateRequest no daemon picked up is completed after this long (default 1 min). */
  crrResponseTimeoutMs?: number;
  identity?: string;
  /** Replaces the default exit of a replica that lost its Lease (tests running managers in-process). */
  onLeadershipLost?: (reason: string) => void;
  random?: () => number;
  /** Called before each reconcile with the controller's name and the request key (tests, benches count them). */
  onReconcile?: (controller: string, key: string) => void;
}
