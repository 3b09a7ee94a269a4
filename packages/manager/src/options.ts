import { type FeatureGates, parseFeatureGates } from '@kruise/api';
import {
  boolValue,
  durationValue,
  FlagSet,
  type FlagValue,
  featureGatesValue,
  listenAddressValue,
  portValue,
  stringValue,
  wholeNumberValue,
} from '@kruise/runtime';

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
  statefulSetWorkers: number;
  advancedCronJobWorkers: number;
  daemonSetWorkers: number;
  sidecarSetWorkers: number;
  podUnavailableBudgetWorkers: number;
  /** Daemon pods are pinned to their node by affinity and bound by the scheduler (false: the controller sets nodeName). */
  assignPodsByScheduler: boolean;
  broadcastJobWorkers: number;
  sidecarTerminatorWorkers: number;
  /** BroadcastJob pods are pinned through node affinity for the scheduler (else by nodeName). */
  assignBroadcastJobPodsByScheduler: boolean;
  /** PreparingDelete pods do not count when CloneSets scale (every CloneSet, not just labelled ones). */
  cloneSetScalingExcludePreparingDelete: boolean;
  /** Workload expectations unsatisfied this long are dropped (upstream's --expectation-timeout). */
  expectationTimeoutMs: number;
  daemonConfigNamespace: string;
}

const positiveInt = wholeNumberValue(1, Number.POSITIVE_INFINITY, 'must be a positive integer');

/** client-go's answer for each lock type it no longer has (resourcelock.New); only `leases` is taken. */
const REMOVED_LOCKS: Record<string, string> = {
  endpoints: 'endpoints lock is removed, migrate to endpointsleases (using version v0.27.x)',
  configmaps: 'configmaps lock is removed, migrate to configmapsleases (using version v0.27.x)',
  endpointsleases: 'endpointsleases lock is removed, migrate to leases',
  configmapsleases: 'configmapsleases lock is removed, migrated to leases',
};

const resourceLock: FlagValue<string> = {
  type: 'string',
  parse: (v) => {
    if (v === 'leases') return v;
    if (v === 'coordinatedLeases') throw new Error('coordinatedLeases is not supported here: use leases');
    throw new Error(Object.hasOwn(REMOVED_LOCKS, v) ? REMOVED_LOCKS[v]! : `Invalid lock-type ${v}`);
  },
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

/** kruise-manager's flags (defaults from the environment where noted). */
export function managerFlags() {
  return new FlagSet('kruise-manager', DESCRIPTION)
    .flag('kubeconfig', stringValue, '', 'kubeconfig file; without it, the in-cluster configuration')
    .flag(
      'metrics-addr',
      listenAddressValue,
      ':8080',
      'address the metrics endpoint binds to (0 disables it)',
    )
    .flag(
      'health-probe-addr',
      listenAddressValue,
      ':8000',
      'address the health probes bind to (0 disables them)',
    )
    .flag(
      'webhook-port',
      portValue,
      Number(process.env.WEBHOOK_PORT ?? 9876),
      'port the webhook server listens on (0 picks a free one; env WEBHOOK_PORT)',
    )
    .flag('webhook-host', stringValue, '', 'address the webhook server binds to (all interfaces when empty)')
    .flag(
      'webhook-service-name',
      stringValue,
      'kruise-webhook-service',
      'Service in front of the webhook server',
    )
    .flag(
      'webhook-service-namespace',
      stringValue,
      process.env.POD_NAMESPACE ?? 'kruise-system',
      'namespace of that Service (env POD_NAMESPACE)',
    )
    .flag('enable-leader-election', boolValue, true, 'elect one active replica through a Lease')
    .flag(
      'leader-election-namespace',
      stringValue,
      process.env.POD_NAMESPACE ?? 'kruise-system',
      'namespace of the leader election Lease (env POD_NAMESPACE)',
    )
    .flag('leader-election-id', stringValue, 'kruise-manager', 'name of the leader election Lease')
    .flag(
      'leader-election-resource-lock',
      resourceLock,
      'leases',
      'the resource leader election holds (leases, the only lock client-go still has)',
    )
    .flag(
      'leader-election-lease-duration',
      durationValue,
      15_000,
      'how long non-leader candidates wait after the last observed renewal before they take the lease',
    )
    .flag(
      'leader-election-renew-deadline',
      durationValue,
      10_000,
      'how long the leader retries renewing the lease before it gives up (and exits)',
    )
    .flag(
      'leader-election-retry-period',
      durationValue,
      2_000,
      'how long candidates wait between attempts to take or renew the lease',
    )
    .flag(
      'controller-cache-sync-timeout',
      durationValue,
      120_000,
      'how long informers may take to list before start-up fails',
    )
    .flag(
      'sync-period',
      durationValue,
      10 * 3_600_000,
      "how often every cached object is reconciled again though nothing changed (0s: never); controller-runtime's default",
    )
    .flag(
      'feature-gates',
      featureGatesValue(parseFeatureGates),
      '',
      "comma-separated Gate=bool pairs of Kruise's gates (bool as Go reads it: true, false, 1, 0, t, F, …)",
    )
    .flag(
      'nodeimage-creation-delay',
      durationValue,
      30_000,
      'how long a Node must be Ready before it gets a NodeImage',
    )
    .flag(
      'default-ttlseconds-for-always-nodeimage',
      wholeNumberValue(0, 31 * 24 * 3600, 'must be between 0 and 2678400'),
      300,
      'extra TTL of NodeImage tags made by Always jobs (0..2678400)',
    )
    .flag('imagepulljob-workers', positiveInt, 3, 'workers of the ImagePullJob controller')
    .flag('imagelistpulljob-workers', positiveInt, 3, 'workers of the ImageListPullJob controller')
    .flag('nodeimage-workers', positiveInt, 3, 'workers of the NodeImage controller')
    .flag('crr-workers', positiveInt, 3, 'workers of the ContainerRecreateRequest controller')
    .flag('cloneset-workers', positiveInt, 3, 'workers of the CloneSet controller')
    .flag('statefulset-workers', positiveInt, 3, 'workers of the Advanced StatefulSet controller')
    .flag('advancedcronjob-workers', positiveInt, 3, 'workers of the AdvancedCronJob controller')
    .flag('daemonset-workers', positiveInt, 3, 'workers of the Advanced DaemonSet controller')
    .flag('sidecarset-workers', positiveInt, 3, 'Max concurrent workers for SidecarSet controller.')
    .flag(
      'podunavailablebudget-workers',
      positiveInt,
      3,
      'Max concurrent workers for PodUnavailableBudget controller.',
    )
    .flag(
      'assign-pods-by-scheduler',
      boolValue,
      true,
      'let the scheduler bind Advanced DaemonSet pods (false: the controller sets their nodeName)',
    )
    .flag('broadcastjob-workers', positiveInt, 3, 'Max concurrent workers for BroadCastJob controller.')
    .flag(
      'sidecarterminator-workers',
      positiveInt,
      3,
      'Max concurrent workers for SidecarTerminator controller.',
    )
    .flag(
      'assign-bcj-pods-by-scheduler',
      boolValue,
      true,
      'Use scheduler to assign broadcastJob pod to node.',
    )
    .flag(
      'cloneset-scaling-exclude-preparing-delete',
      boolValue,
      false,
      'leave PreparingDelete pods out when CloneSets count pods to scale',
    )
    .flag(
      'expectation-timeout',
      durationValue,
      5 * 60_000,
      'how long a workload waits for its cache to show its own writes before it goes on',
    );
}

/** Parses argv into options; throws a UsageError (exit code 2, pflag's words) on bad input, one with exit code 0 for `--help`. */
export function parseOptions(argv: string[]): ManagerOptions {
  const o = managerFlags().parse(argv);
  return {
    kubeconfig: o.kubeconfig || undefined,
    metricsAddr: o['metrics-addr'],
    healthProbeAddr: o['health-probe-addr'],
    webhookPort: o['webhook-port'],
    webhookHost: o['webhook-host'],
    webhookServiceName: o['webhook-service-name'],
    webhookServiceNamespace: o['webhook-service-namespace'],
    enableLeaderElection: o['enable-leader-election'],
    leaderElectionNamespace: o['leader-election-namespace'],
    leaderElectionId: o['leader-election-id'],
    leaseDurationMs: o['leader-election-lease-duration'],
    renewDeadlineMs: o['leader-election-renew-deadline'],
    retryPeriodMs: o['leader-election-retry-period'],
    cacheSyncTimeoutMs: o['controller-cache-sync-timeout'],
    syncPeriodMs: o['sync-period'],
    featureGates: parseFeatureGates(o['feature-gates']),
    nodeImageCreationDelayMs: o['nodeimage-creation-delay'],
    defaultTtlSecondsForAlwaysNodeImage: o['default-ttlseconds-for-always-nodeimage'],
    imagePullJobWorkers: o['imagepulljob-workers'],
    imageListPullJobWorkers: o['imagelistpulljob-workers'],
    nodeImageWorkers: o['nodeimage-workers'],
    crrWorkers: o['crr-workers'],
    cloneSetWorkers: o['cloneset-workers'],
    statefulSetWorkers: o['statefulset-workers'],
    advancedCronJobWorkers: o['advancedcronjob-workers'],
    daemonSetWorkers: o['daemonset-workers'],
    sidecarSetWorkers: o['sidecarset-workers'],
    podUnavailableBudgetWorkers: o['podunavailablebudget-workers'],
    assignPodsByScheduler: o['assign-pods-by-scheduler'],
    broadcastJobWorkers: o['broadcastjob-workers'],
    sidecarTerminatorWorkers: o['sidecarterminator-workers'],
    assignBroadcastJobPodsByScheduler: o['assign-bcj-pods-by-scheduler'],
    cloneSetScalingExcludePreparingDelete: o['cloneset-scaling-exclude-preparing-delete'],
    expectationTimeoutMs: o['expectation-timeout'],
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
  /**
   * The clock of the controllers that keep wall time (BroadcastJob deadlines and TTLs, AdvancedCronJob
   * schedules), epoch ms; `Date.now` by default.
   */
  now?: () => number;
}
