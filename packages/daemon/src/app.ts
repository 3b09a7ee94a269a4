import {
  EventRecorder,
  type KubeClient,
  type Logger,
  ProbeServer,
  parseListenAddress,
} from '@kruise/runtime';
import { Counter, Histogram, Registry } from 'prom-client';
import { discoverRuntime } from './cri/discovery.ts';
import { ImagePuller } from './imagepuller/puller.ts';
import type { DaemonOptions } from './options.ts';
import { CriImageService } from './runtime/cri-image-service.ts';

/** A running kruise-daemon. */
export interface DaemonApp {
  puller: ImagePuller;
  probes: ProbeServer;
  port: number;
  registry: Registry;
  stop(): Promise<void>;
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
  const registry = new Registry();
  const pullSeconds = new Histogram({
    name: 'kruise_daemon_image_pull_seconds',
    help: 'Time to pull an image, by result',
    labelNames: ['result'],
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const pulls = new Counter({
    name: 'kruise_daemon_image_pulls_total',
    help: 'Image pulls by result',
    labelNames: ['result'],
    registers: [registry],
  });
  const recorder = new EventRecorder(client, 'kruise-daemon-imagepuller', {
    host: options.nodeName,
    logger: log,
  });
  const puller = new ImagePuller({
    node: options.nodeName,
    client,
    images: new CriImageService(runtime.client, runtime.runtimeName),
    recorder,
    log,
    maxWorkers: options.maxWorkersForPullImage,
    maxWorkersPerRegistry: options.maxWorkersPerRegistry,
    statusUpdateIntervalMs: options.statusUpdateIntervalMs,
    configNamespace: options.configNamespace,
    onFinished: (r) => {
      const result = r.ok ? 'success' : 'failure';
      pullSeconds.observe({ result }, r.seconds);
      pulls.inc({ result });
    },
  });
  const probes = new ProbeServer();
  probes.addHealthzCheck('informers', () => {
    if (!puller.hasSynced()) throw new Error('NodeImage informer not synced');
  });
  probes.addHealthzCheck('runtime', async () => {
    await runtime.client.version({ timeoutMs: 2000 });
  });
  probes.handle('/metrics', async (_req, res) => {
    res.writeHead(200, { 'content-type': registry.contentType });
    res.end(await registry.metrics());
  });
  const addr = parseListenAddress(options.addr);
  const port = addr ? await probes.listen(addr.host, addr.port) : 0;
  puller.start();
  return {
    puller,
    probes,
    port,
    registry,
    stop: async () => {
      await puller.stop();
      await recorder.flush();
      await probes.close();
      runtime.client.close();
    },
  };
}
