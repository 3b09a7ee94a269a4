import type { ImageSpec, ImageTagSpec, NodeImage } from '@kruise/api';
import { KruiseResources } from '@kruise/api/kinds';
import { newController } from '@kruise/runtime/controller/builder';
import type { Controller } from '@kruise/runtime/controller/controller';
import type { EventRecorder } from '@kruise/runtime/events/recorder';
import { Informer } from '@kruise/runtime/informer/informer';
import { withoutManagedFields } from '@kruise/runtime/informer/trim';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import type { Logger } from '@kruise/runtime/log/logger';
import type { ImageService } from '../runtime/image-service.ts';
import { PullCredentials } from './credentials.ts';
import { PullEvents, type PullOutcome } from './events.ts';
import { PullWorker, type WorkerContext } from './pull-worker.ts';
import { Semaphore } from './semaphore.ts';
import { buildNodeImageStatus } from './status.ts';
import { StatusWriter } from './status-writer.ts';
import { WorkerSet } from './worker-set.ts';

/** How the puller is set up. */
export interface PullerOptions {
  node: string;
  client: KubeClient;
  images: ImageService;
  recorder: EventRecorder;
  log: Logger;
  /** `--max-workers-for-pull-image` (≤ 0: unlimited). */
  maxWorkers: number;
  /** Pulls at once from one registry (≤ 0: unlimited). */
  maxWorkersPerRegistry: number;
  /** `--status-update-interval`: at most one status write per NodeImage per this many ms. */
  statusUpdateIntervalMs: number;
  /** Namespace the daemon may read pull secrets from. */
  configNamespace?: string;
  backoff?: WorkerContext['backoff'];
  /** Result of each finished pull (metrics). */
  onFinished?: (result: PullOutcome) => void;
}

type CachedNodeImage = NodeImage & KubeObject;

/**
 * The daemon's image puller, a controller over its own NodeImage. The informer's handlers only
 * enqueue the NodeImage's key; a reconcile hands the cached NodeImage to the worker set, which
 * starts and stops one pull worker per tag version. Data flows one way: NodeImage → workers →
 * status snapshot (a pure builder) → a throttled status writer. Each worker is handed its own
 * credentials lookup (secret cache + keyring) and reports its outcome as events.
 */
export class ImagePuller {
  readonly informer: Informer<CachedNodeImage>;
  readonly controller: Controller;
  private readonly o: PullerOptions;
  private readonly workers: WorkerSet;
  private readonly writer: StatusWriter;
  private readonly credentials: PullCredentials;
  private readonly events: PullEvents;
  private readonly global: Semaphore;
  private readonly registries = new Map<string, Semaphore>();

  constructor(options: PullerOptions) {
    this.o = options;
    this.informer = new Informer<CachedNodeImage>(options.client, {
      resource: KruiseResources.NodeImage,
      fieldSelector: `metadata.name=${options.node}`,
      logger: options.log,
      transform: withoutManagedFields,
    });
    this.credentials = new PullCredentials(options.client, options.log, options.configNamespace);
    this.events = new PullEvents(options.recorder);
    this.global = new Semaphore(options.maxWorkers);
    this.workers = new WorkerSet((image, spec, tag) => this.startWorker(image, spec, tag));
    this.writer = new StatusWriter(
      options.client,
      options.node,
      options.statusUpdateIntervalMs,
      () => buildNodeImageStatus(this.workers.snapshot()),
      options.log,
    );
    // Every event of its node's NodeImage asks for the one reconcile there is.
    this.controller = newController(
      { name: 'imagepuller', reconcile: async () => this.reconcile() },
      { logger: options.log },
    ).watches(this.informer, () => ({ namespace: '', name: options.node })).controller;
  }

  /** Pulls in flight or waiting. */
  get activeWorkers(): number {
    return this.workers.active;
  }

  /** Starts following the NodeImage. */
  start(): void {
    this.informer.start();
    this.controller.start();
  }

  /** Whether the NodeImage informer has listed. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  /** Level-based: the workers follow the cached NodeImage's spec, and the status is written soon. */
  private reconcile(): void {
    this.workers.sync(this.informer.get(this.o.node));
    this.writer.poke();
  }

  private perRegistry(registry: string): Semaphore {
    let s = this.registries.get(registry);
    if (!s) {
      s = new Semaphore(this.o.maxWorkersPerRegistry);
      this.registries.set(registry, s);
    }
    return s;
  }

  private startWorker(name: string, spec: ImageSpec, tag: ImageTagSpec): PullWorker {
    // Events go to the NodeImage as cached now (none once it is gone).
    const subject = () => this.informer.get(this.o.node);
    const ctx: WorkerContext = {
      images: this.o.images,
      global: this.global,
      perRegistry: (r) => this.perRegistry(r),
      credentials: (image) =>
        this.credentials.forImage(image, spec.pullSecrets ?? [], (secretKey, secretName, reason) => {
          const ni = subject();
          if (ni)
            this.events.invalidSecret(
              ni,
              this.workers.ownersNamingSecret(secretName),
              image,
              secretKey,
              reason,
            );
        }),
      log: this.o.log,
      backoff: this.o.backoff,
      onFinished: (r) => {
        this.o.onFinished?.(r);
        const ni = subject();
        if (ni) this.events.pulled(ni, this.workers.owners(r.image, r.tag), r);
      },
    };
    return new PullWorker(name, tag, spec.sandboxConfig, ctx, () => this.writer.poke());
  }

  /** Stops every worker (pulls are cancelled) and writes a truthful final status: no tag stays Pulling. */
  async stop(): Promise<void> {
    await this.controller.stop(5000);
    this.workers.stop();
    await this.writer.close();
    await this.informer.stop();
  }
}
