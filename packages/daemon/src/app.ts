import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EventRecorder } from '@kruise/runtime/events/recorder';
import { parseListenAddress } from '@kruise/runtime/http/address';
import { ProbeServer } from '@kruise/runtime/http/probe-server';
import type { KubeClient } from '@kruise/runtime/kube/client';
import type { Logger } from '@kruise/runtime/log/logger';
import { ContainerMetaController } from './containermeta/controller.ts';
import { CrrExecutor } from './containerrecreate/executor.ts';
import { type DiscoveredRuntime, discoverRuntime } from './cri/discovery.ts';
import { ImagePuller } from './imagepuller/puller.ts';
import { DaemonMetrics } from './metrics.ts';
import type { DaemonOptions } from './options.ts';
import { CriImageService } from './runtime/cri-image-service.ts';
import type { ImageService } from './runtime/image-service.ts';

/** A running kruise-daemon. */
export interface DaemonApp {
  puller: ImagePuller;
  crr: CrrExecutor;
  /** containermeta, when gate DaemonWatchingPod is on. */
  containerMeta: ContainerMetaController | undefined;
  probes: ProbeServer;
  port: number;
  metrics: DaemonMetrics;
  stop(): Promise<void>;
}

/**
 * The image service pulls go through: Docker Engine when `--docker-endpoint` is given, or when the
 * CRI runtime is cri-dockerd (it calls itself `docker`, or answered at a `cri-dockerd.sock`) and
 * the host run dir has `docker.sock`; CRI otherwise. dockerode is loaded only in those cases.
 */
export async function chooseImageService(
  runtime: Pick<DiscoveredRuntime, 'client' | 'endpoint' | 'runtimeName'>,
  options: Pick<DaemonOptions, 'dockerEndpoint' | 'hostRunDir'> & { statusUpdateIntervalMs?: number },
  log: Logger,
): Promise<ImageService> {
  let socket = options.dockerEndpoint?.replace(/^unix:\/\//, '');
  const criDockerd = runtime.runtimeName === 'docker' || runtime.endpoint.endsWith('cri-dockerd.sock');
  if (!socket && criDockerd && existsSync(join(options.hostRunDir, 'docker.sock')))
    socket = join(options.hostRunDir, 'docker.sock');
  // Live progress is polled no more often than the status that shows it is written.
  if (!socket)
    return new CriImageService(runtime.client, runtime.runtimeName, options.statusUpdateIntervalMs ?? 2000);
  const { default: Docker } = await import('dockerode');
  const { DockerImageService } = await import('./runtime/docker-image-service.ts');
  const docker = new Docker({ socketPath: socket });
  await docker.ping();
  log.info({ endpoint: socket }, 'pulling through the Docker Engine API');
  return new DockerImageService(docker);
}

/** Finds the runtime, starts the image puller and serves /healthz and /metrics. */
export async function startDaemon(
  client: KubeClient,
  options: DaemonOptions,
  log: Logger,
): Promise<DaemonApp> {
  const runtime = await discoverRuntime({
    ...(options.runtimeEndpoint ? { endpoint: options.runtimeEndpoint } : {}),
    hostRunDir: options.hostRunDir,
  });
  log.info(
    { endpoint: runtime.endpoint, runtime: runtime.runtimeName, version: runtime.runtimeVersion },
    'container runtime found',
  );
  const metrics = new DaemonMetrics();
  const images = await chooseImageService(runtime, options, log);
  const recorder = new EventRecorder(client, 'kruise-daemon-imagepuller', {
    host: options.nodeName,
    logger: log,
  });
  const puller = new ImagePuller({
    node: options.nodeName,
    client,
    images,
    recorder,
    log,
    maxWorkers: options.maxWorkersForPullImage,
    maxWorkersPerRegistry: options.maxWorkersPerRegistry,
    statusUpdateIntervalMs: options.statusUpdateIntervalMs,
    configNamespace: options.configNamespace,
    onFinished: (r) => metrics.observePull(r.ok ? 'success' : 'failure', r.seconds),
  });
  const crrRecorder = new EventRecorder(client, 'kruise-daemon-crr', { host: options.nodeName, logger: log });
  const crr = new CrrExecutor({
    node: options.nodeName,
    client,
    cri: runtime.client,
    runtimeName: runtime.runtimeName,
    recorder: crrRecorder,
    log: log.child({ worker: 'crr' }),
    onStop: () => metrics.crrStops.inc(),
    expectationTimeouts: metrics.expectationTimeouts,
  });
  const gates = options.featureGates;
  const metaRecorder = new EventRecorder(client, 'kruise-daemon-containermeta', {
    host: options.nodeName,
    logger: log,
  });
  const containerMeta = gates.enabled('DaemonWatchingPod')
    ? new ContainerMetaController({
        node: options.nodeName,
        client,
        cri: runtime.client,
        runtimeName: runtime.runtimeName,
        recorder: metaRecorder,
        log: log.child({ worker: 'containermeta' }),
        envFromMetadata: gates.enabled('InPlaceUpdateEnvFromMetadata'),
        expectationTimeouts: metrics.expectationTimeouts,
      })
    : undefined;
  const probes = new ProbeServer();
  probes.addHealthzCheck('informers', () => {
    if (!puller.hasSynced()) throw new Error('NodeImage informer not synced');
    if (!crr.hasSynced()) throw new Error('ContainerRecreateRequest informer not synced');
  });
  probes.addHealthzCheck('runtime', async () => {
    await runtime.client.version({ timeoutMs: 2000 });
  });
  probes.handle('/metrics', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(metrics.expose());
  });
  const addr = parseListenAddress(options.addr);
  const port = addr ? await probes.listen(addr.host, addr.port) : 0;
  puller.start();
  crr.start();
  containerMeta?.start();
  return {
    puller,
    crr,
    containerMeta,
    probes,
    port,
    metrics,
    stop: async () => {
      await Promise.all([puller.stop(), crr.stop(), containerMeta?.stop()]);
      await recorder.flush();
      await crrRecorder.flush();
      await metaRecorder.flush();
      await probes.close();
      runtime.client.close();
    },
  };
}
