import type { FeatureGates } from '@kruise/api';
import { type Controller, type KubeClient, type Logger, Manager } from '@kruise/runtime';
import type { AddController } from './controllers/add-options.ts';
import * as advancedcronjob from './controllers/advancedcronjob/controller.ts';
import * as broadcastjob from './controllers/broadcastjob/controller.ts';
import * as cloneset from './controllers/cloneset/controller.ts';
import * as containerlaunchpriority from './controllers/containerlaunchpriority/controller.ts';
import * as containerrecreaterequest from './controllers/containerrecreaterequest/controller.ts';
import * as daemonset from './controllers/daemonset/controller.ts';
import * as imagelistpulljob from './controllers/imagelistpulljob/controller.ts';
import * as imagepulljob from './controllers/imagepulljob/controller.ts';
import * as nodeimage from './controllers/nodeimage/controller.ts';
import * as podreadiness from './controllers/podreadiness/controller.ts';
import * as podunavailablebudget from './controllers/podunavailablebudget/controller.ts';
import * as sidecarset from './controllers/sidecarset/controller.ts';
import * as sidecarterminator from './controllers/sidecarterminator/controller.ts';
import * as statefulset from './controllers/statefulset/controller.ts';
import type { AppTuning, ManagerOptions } from './options.ts';
import { addWebhooks, type Webhooks } from './webhooks/server.ts';

/** Every controller of kruise-manager and the feature gates it runs behind (upstream's `controllers.go`). */
const CONTROLLERS: { add: AddController; enabled(gates: FeatureGates): boolean }[] = [
  { add: nodeimage.add, enabled: (g) => g.enabled('KruiseDaemon') },
  { add: containerrecreaterequest.add, enabled: (g) => g.enabled('KruiseDaemon') },
  { add: imagepulljob.add, enabled: (g) => g.enabled('KruiseDaemon') && g.enabled('ImagePullJobGate') },
  { add: imagelistpulljob.add, enabled: (g) => g.enabled('KruiseDaemon') && g.enabled('ImagePullJobGate') },
  { add: cloneset.add, enabled: () => true },
  { add: statefulset.add, enabled: () => true },
  { add: daemonset.add, enabled: () => true },
  { add: broadcastjob.add, enabled: () => true },
  { add: podreadiness.add, enabled: () => true },
  { add: containerlaunchpriority.add, enabled: () => true },
  { add: advancedcronjob.add, enabled: () => true },
  { add: sidecarterminator.add, enabled: (g) => g.enabled('KruiseDaemon') && g.enabled('SidecarTerminator') },
  { add: sidecarset.add, enabled: () => true },
  {
    add: podunavailablebudget.add,
    enabled: (g) =>
      g.enabled('PodUnavailableBudgetDeleteGate') || g.enabled('PodUnavailableBudgetUpdateGate'),
  },
];

/** kruise-manager wired together: manager, webhooks and their certificates, the enabled controllers by name. */
export interface ManagerApp {
  manager: Manager;
  webhook: Webhooks['server'];
  certs: Webhooks['certs'];
  webhookPort: number;
  /** The running controllers by name (`imagepulljob`, `nodeimage`, …). */
  controllers: ReadonlyMap<string, Controller>;
  stop(): Promise<void>;
}

/** Builds and starts kruise-manager: the webhooks, then each controller whose gates are on. */
export async function startManager(
  client: KubeClient,
  flags: ManagerOptions,
  log: Logger,
  tuning: AppTuning = {},
): Promise<ManagerApp> {
  const manager = new Manager({
    client,
    logger: log,
    healthProbeAddr: flags.healthProbeAddr,
    metricsAddr: flags.metricsAddr,
    cacheSyncTimeoutMs: flags.cacheSyncTimeoutMs,
    syncPeriodMs: flags.syncPeriodMs,
    ...(tuning.onLeadershipLost ? { onLeadershipLost: tuning.onLeadershipLost } : {}),
    ...(flags.enableLeaderElection
      ? {
          leaderElection: {
            namespace: flags.leaderElectionNamespace,
            name: flags.leaderElectionId,
            ...(tuning.identity ? { identity: tuning.identity } : {}),
            leaseDurationMs: flags.leaseDurationMs,
            renewDeadlineMs: flags.renewDeadlineMs,
            retryPeriodMs: flags.retryPeriodMs,
          },
        }
      : {}),
  });
  const webhooks = addWebhooks(manager, flags);
  const controllers = new Map<string, Controller>();
  for (const c of CONTROLLERS) {
    if (!c.enabled(flags.featureGates)) continue;
    const added = c.add(manager, { flags, tuning });
    controllers.set(added.name, added.controller);
  }
  await manager.start();
  return {
    manager,
    webhook: webhooks.server,
    certs: webhooks.certs,
    get webhookPort() {
      return webhooks.port();
    },
    controllers,
    stop: () => manager.stop(),
  };
}
