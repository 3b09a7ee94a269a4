import { type FeatureGates, parseFeatureGates } from '@kruise/api';
import {
  boolOption,
  durationOption,
  featureGatesFlag,
  listenAddressArgument,
  parseCommandLine,
  portArgument,
  programCommand,
} from '@kruise/runtime';
import { type Command, InvalidArgumentError } from 'commander';

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
  /** How often the informers re-deliver every cached object (controller-runtime's default 10 h; 0: never). */
  syncPeriodMs: number;
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

const positiveInt = (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(v);
};

/** client-go's answer for each lock type it no longer has (resourcelock.New); only `leases` is taken. */
const REMOVED_LOCKS: Record<string, string> = {
  endpoints: 'endpoints lock is removed, migrate to endpointsleases (using version v0.27.x)',
  configmaps: 'configmaps lock is removed, migrate to configmapsleases (using version v0.27.x)',
  endpointsleases: 'endpointsleases lock is removed, migrate to leases',
  configmapsleases: 'configmapsleases lock is removed, migrated to leases',
};

const resourceLock = (v: string) => {
  if (v === 'leases') return v;
  if (v === 'coordinatedLeases')
    throw new InvalidArgumentError('coordinatedLeases is not supported here: use leases');
  throw new InvalidArgumentError(
    Object.hasOwn(REMOVED_LOCKS, v) ? REMOVED_LOCKS[v]! : `Invalid lock-type ${v}`,
  );
};

/** What kruise-manager runs, for `--help`. */
const DESCRIPTION = `OpenKruise's kruise-manager: the controllers and admission webhooks of Kruise.
Controllers:
  NodeImage, ContainerRecreateRequest (gate KruiseDaemon),
  ImagePullJob, ImageListPullJob (gates KruiseDaemon and ImagePullJobGate),
  CloneSet, pod readiness, container launch priority
Webhooks:
  NodeImage, ImagePullJob, ImageListPullJob, ContainerRecreateRequest, CloneSet,
  pods (gate PodWebhook)`;

/** The command-line interface; `parse` throws a CommanderError (exit code 2) for bad input. */
export function buildCommand(): Command {
  return programCommand('kruise-manager', DESCRIPTION)
    .option('--kubeconfig <file>', 'kubeconfig file; without it, the in-cluster configuration')
    .option(
      '--metrics-addr <addr>',
      'address the metrics endpoint binds to (0 disables it)',
      listenAddressArgument,
      ':8080',
    )
    .option(
      '--health-probe-addr <addr>',
      'address the health probes bind to (0 disables them)',
      listenAddressArgument,
      ':8000',
    )
    .option(
      '--webhook-port <port>',
      'port the webhook server listens on (0 picks a free one; env WEBHOOK_PORT)',
      portArgument,
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
    .addOption(boolOption('--enable-leader-election', 'elect one active replica through a Lease', true))
    .option(
      '--leader-election-namespace <ns>',
      'namespace of the leader election Lease (env POD_NAMESPACE)',
      process.env.POD_NAMESPACE ?? 'kruise-system',
    )
    .option('--leader-election-id <name>', 'name of the leader election Lease', 'kruise-manager')
    .option(
      '--leader-election-resource-lock <lock>',
      'the resource leader election holds (leases, the only lock client-go still has)',
      resourceLock,
      'leases',
    )
    .addOption(
      durationOption(
        '--leader-election-lease-duration <duration>',
        'how long non-leader candidates wait after the last observed renewal before they take the lease',
        15_000,
      ),
    )
    .addOption(
      durationOption(
        '--leader-election-renew-deadline <duration>',
        'how long the leader retries renewing the lease before it gives up (and exits)',
        10_000,
      ),
    )
    .addOption(
      durationOption(
        '--leader-election-retry-period <duration>',
        'how long candidates wait between attempts to take or renew the lease',
        2_000,
      ),
    )
    .addOption(
      durationOption(
        '--controller-cache-sync-timeout <duration>',
        'how long informers may take to list before start-up fails',
        120_000,
      ),
    )
    .addOption(
      durationOption(
        '--sync-period <duration>',
        "how often every cached object is reconciled again though nothing changed (0s: never); controller-runtime's default",
        10 * 3_600_000,
      ),
    )
    .option(
      '--feature-gates <gates>',
      "comma-separated Gate=bool pairs of Kruise's gates (bool as Go reads it: true, false, 1, 0, t, F, …)",
      '',
    )
    .addOption(
      durationOption(
        '--nodeimage-creation-delay <duration>',
        'how long a Node must be Ready before it gets a NodeImage',
        30_000,
      ),
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
    .option('--imagepulljob-workers <n>', 'workers of the ImagePullJob controller', positiveInt, 3)
    .option('--imagelistpulljob-workers <n>', 'workers of the ImageListPullJob controller', positiveInt, 3)
    .option('--nodeimage-workers <n>', 'workers of the NodeImage controller', positiveInt, 3)
    .option('--crr-workers <n>', 'workers of the ContainerRecreateRequest controller', positiveInt, 3)
    .option('--cloneset-workers <n>', 'workers of the CloneSet controller', positiveInt, 3)
    .addOption(
      boolOption(
        '--cloneset-scaling-exclude-preparing-delete',
        'leave PreparingDelete pods out when CloneSets count pods to scale',
        false,
      ),
    )
    .addOption(
      durationOption(
        '--expectation-timeout <duration>',
        'how long a workload waits for its cache to show its own writes before it goes on',
        5 * 60_000,
      ),
    );
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
    syncPeriodMs: o.syncPeriod,
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
