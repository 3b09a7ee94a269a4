import type { ContainerRecreateRequest, ImageListPullJob, ImagePullJob, NodeImage } from '@kruise/api';
import {
  CertManager,
  EventRecorder,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  Manager,
  Resources,
  WebhookServer,
} from '@kruise/runtime';
import { ContainerRecreateRequestController } from './controllers/containerrecreaterequest/controller.ts';
import { ImageListPullJobController } from './controllers/imagelistpulljob/controller.ts';
import { ImagePullJobController } from './controllers/imagepulljob/controller.ts';
import { SecretSync } from './controllers/imagepulljob/secrets.ts';
import { NodeImageController } from './controllers/nodeimage/controller.ts';
import { WEBHOOK_NAMES } from './deploy/webhook-configurations.ts';
import type { ManagerOptions } from './options.ts';
import { registerRoutes, webhookRoutes } from './webhooks/paths.ts';

/** What the CRR controller reads of a container status. */
function trimContainerStatus(s: any): any {
  return {
    name: s?.name,
    ready: s?.ready,
    restartCount: s?.restartCount,
    containerID: s?.containerID,
    ...(s?.state?.running ? { state: { running: { startedAt: s.state.running.startedAt } } } : {}),
  };
}

/** What the CRR webhook reads of a container spec. */
function trimContainer(c: any): any {
  return {
    name: c?.name,
    ...(c?.ports ? { ports: c.ports } : {}),
    ...(c?.lifecycle?.preStop ? { lifecycle: { preStop: c.lifecycle.preStop } } : {}),
  };
}

/**
 * The parts of a pod the controllers read — labels and node (podSelector jobs), container
 * statuses, conditions and readiness gates (ContainerRecreateRequests): the rest is not cached.
 */
export function trimPod(pod: KubeObject): KubeObject {
  const m = pod.metadata ?? {};
  const st = pod.status ?? {};
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      labels: m.labels,
      deletionTimestamp: m.deletionTimestamp,
      ownerReferences: m.ownerReferences,
    },
    spec: {
      nodeName: pod.spec?.nodeName,
      readinessGates: pod.spec?.readinessGates,
      terminationGracePeriodSeconds: pod.spec?.terminationGracePeriodSeconds,
      containers: pod.spec?.containers?.map(trimContainer),
      initContainers: pod.spec?.initContainers?.map(trimContainer),
    },
    status: {
      phase: st.phase,
      conditions: st.conditions,
      containerStatuses: st.containerStatuses?.map(trimContainerStatus),
      initContainerStatuses: st.initContainerStatuses?.map(trimContainerStatus),
    },
  };
}

/** The parts of a Node the NodeImage controller reads: labels and the Ready condition. */
export function trimNode(node: KubeObject): KubeObject {
  const m = node.metadata ?? {};
  return {
    metadata: {
      name: m.name,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      labels: m.labels,
      deletionTimestamp: m.deletionTimestamp,
    },
    status: {
      conditions: (node.status?.conditions ?? []).filter((c: { type?: string }) => c.type === 'Ready'),
    },
  };
}

/** Knobs tests turn (defaults are upstream's). */
export interface AppTuning {
  /** A NodeImage tag never reported is failed after this long (default 10 min). */
  responseTimeoutMs?: number;
  /** A ContainerRecreateRequest no daemon picked up is completed after this long (default 1 min). */
  crrResponseTimeoutMs?: number;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  identity?: string;
  random?: () => number;
}

/** kruise-manager wired together: manager, informers, controllers, webhooks and their certificates. */
export interface ManagerApp {
  manager: Manager;
  webhook: WebhookServer;
  certs: CertManager;
  webhookPort: number;
  imagePullJobs: ImagePullJobController;
  nodeImages: NodeImageController;
  imageListPullJobs: ImageListPullJobController;
  containerRecreateRequests: ContainerRecreateRequestController;
  stop(): Promise<void>;
}

/** Builds and starts kruise-manager. */
export async function startManager(
  client: KubeClient,
  options: ManagerOptions,
  log: Logger,
  tuning: AppTuning = {},
): Promise<ManagerApp> {
  const manager = new Manager({
    client,
    logger: log,
    healthProbeAddr: options.healthProbeAddr,
    metricsAddr: options.metricsAddr,
    ...(options.enableLeaderElection
      ? {
          leaderElection: {
            namespace: options.leaderElectionNamespace,
            name: options.leaderElectionId,
            ...(tuning.identity ? { identity: tuning.identity } : {}),
            ...(tuning.leaseDurationMs ? { leaseDurationMs: tuning.leaseDurationMs } : {}),
            ...(tuning.renewDeadlineMs ? { renewDeadlineMs: tuning.renewDeadlineMs } : {}),
            ...(tuning.retryPeriodMs ? { retryPeriodMs: tuning.retryPeriodMs } : {}),
          },
        }
      : {}),
  });
  const gates = options.featureGates;
  const webhook = new WebhookServer({ logger: log });
  const certs = new CertManager(client, {
    namespace: options.webhookServiceNamespace,
    serviceName: options.webhookServiceName,
    secretName: WEBHOOK_NAMES.secret,
    mutatingConfigurations: [WEBHOOK_NAMES.mutating],
    validatingConfigurations: [WEBHOOK_NAMES.validating],
    crdGroup: 'apps.kruise.io',
    logger: log,
    onCertificates: (c) => webhook.setCertificate(c),
  });
  let webhookPort = 0;
  manager.add({
    name: 'webhook',
    start: async () => {
      const c = await certs.start();
      webhookPort = await webhook.listen(options.webhookHost || '0.0.0.0', options.webhookPort, c);
    },
    stop: async () => {
      await certs.stop();
      await webhook.close();
    },
  });
  manager.addReadyzCheck('webhook', () => {
    if (!webhook.isStarted) throw new Error('webhook server not started');
  });
  const recorder = new EventRecorder(client, 'kruise-manager', { logger: log });
  const f = manager.informers;
  const nodeImages = f.informerFor<NodeImage & KubeObject>({ resource: Resources.NodeImage });
  const jobs = f.informerFor<ImagePullJob & KubeObject>({ resource: Resources.ImagePullJob });
  const nodes = f.informerFor<KubeObject>({ resource: Resources.Node, transform: trimNode });
  const pods = f.informerFor<KubeObject>({ resource: Resources.Pod, transform: trimPod });
  registerRoutes(
    webhook,
    webhookRoutes(gates, {
      // The caches first (as upstream's cached client); the API when they do not have it yet.
      pod: async (ns, name) => {
        const cached = pods.get(`${ns}/${name}`);
        if (cached && (cached.status?.containerStatuses ?? []).every((s: any) => s.containerID))
          return cached;
        try {
          return await client.get(Resources.Pod, ns, name);
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      },
      node: async (name) => nodes.get(name) ?? client.get(Resources.Node, undefined, name),
    }),
  );
  const secrets = f.informerFor<KubeObject>({ resource: Resources.Secret });
  const lists = f.informerFor<ImageListPullJob & KubeObject>({ resource: Resources.ImageListPullJob });
  const crrs = f.informerFor<ContainerRecreateRequest & KubeObject>({
    resource: Resources.ContainerRecreateRequest,
  });
  const daemonConfig = options.daemonConfigNamespace;
  secrets.addIndex('sourceKey', (s) => {
    const k =
      s.metadata?.namespace === daemonConfig
        ? s.metadata?.annotations?.['imagepulljobs.kruise.io/source-key']
        : undefined;
    return k ? [k] : [];
  });
  const secretSync = new SecretSync(
    client,
    {
      source: (ns, name) => secrets.get(`${ns}/${name}`),
      copyOf: (sourceKey) => secrets.byIndex('sourceKey', sourceKey)[0],
      copies: () =>
        secrets
          .list()
          .filter(
            (s) =>
              s.metadata?.namespace === daemonConfig &&
              s.metadata?.annotations?.['imagepulljobs.kruise.io/source-key'],
          ),
    },
    daemonConfig,
    log,
  );
  const daemonOn = gates.enabled('KruiseDaemon');
  const pullJobsOn = daemonOn && gates.enabled('ImagePullJobGate');
  const imagePullJobs = new ImagePullJobController({
    client,
    jobs,
    nodeImages,
    pods,
    secrets: secretSync,
    sourceSecrets: secrets,
    recorder,
    workers: options.imagePullJobWorkers,
    logger: log,
    metrics: manager.metrics,
    settings: {
      defaultTtlSecondsForAlways: options.defaultTtlSecondsForAlwaysNodeImage,
      random: tuning.random ?? Math.random,
      now: () => new Date(),
    },
  });
  const nodeImageController = new NodeImageController({
    client,
    nodes,
    nodeImages,
    jobs,
    recorder,
    creationDelayMs: options.nodeImageCreationDelayMs,
    responseTimeoutMs: tuning.responseTimeoutMs ?? 10 * 60_000,
    workers: options.nodeImageWorkers,
    logger: log,
    metrics: manager.metrics,
  });
  const imageListPullJobs = new ImageListPullJobController({
    client,
    lists,
    jobs,
    recorder,
    workers: options.imageListPullJobWorkers,
    logger: log,
    metrics: manager.metrics,
  });
  const containerRecreateRequests = new ContainerRecreateRequestController({
    client,
    crrs,
    pods,
    workers: options.crrWorkers,
    logger: log,
    metrics: manager.metrics,
    ...(tuning.crrResponseTimeoutMs ? { responseTimeoutMs: tuning.crrResponseTimeoutMs } : {}),
  });
  if (daemonOn) {
    manager.addController(nodeImageController.controller);
    manager.addController(containerRecreateRequests.controller);
  }
  if (pullJobsOn) {
    manager.addController(imagePullJobs.controller);
    manager.addController(imageListPullJobs.controller);
  }
  await manager.start();
  return {
    manager,
    webhook,
    certs,
    get webhookPort() {
      return webhookPort;
    },
    imagePullJobs,
    nodeImages: nodeImageController,
    imageListPullJobs,
    containerRecreateRequests,
    stop: async () => {
      await manager.stop();
      await recorder.flush();
    },
  };
}
