import {
  DEFAULT_DAEMON_CONFIG_NAMESPACE,
  type ImageTagStatus,
  type NodeImage,
  type NodeImageStatus,
  parseImageReference,
} from '@kruise/api';
import type { EventRecorder } from '@kruise/runtime/events/recorder';
import { Informer } from '@kruise/runtime/informer/informer';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { isNotFound } from '@kruise/runtime/kube/errors';
import { Resources } from '@kruise/runtime/kube/resources';
import type { Logger } from '@kruise/runtime/log/logger';
import { type Credential, DockerKeyring, InvalidPullSecretError } from '../auth/keyring.ts';
import type { ImageService } from '../runtime/image-service.ts';
import { PullWorker, type WorkerContext } from './pull-worker.ts';
import { Semaphore } from './semaphore.ts';
import { StatusWriter } from './status-writer.ts';

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
  onFinished?: WorkerContext['onFinished'];
}

const workerKey = (image: string, tag: string) => `${image}\u0000${tag}`;

/** The object a tag's owner reference names (a pull job), as an event's subject. */
const ownerObject = (o: {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
}) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  metadata: { name: o.name, namespace: o.namespace, uid: o.uid },
});

/**
 * The daemon's image puller: follows its own NodeImage, runs one worker per tag version the spec
 * asks for (stopping those whose tag or version left the spec), and reports per-tag status through
 * a throttled writer. Finished statuses of the current version are kept, so a restart does not
 * pull again what is done.
 */
export class ImagePuller {
  readonly informer: Informer<NodeImage & KubeObject>;
  private readonly o: PullerOptions;
  private readonly workers = new Map<string, PullWorker>();
  private readonly kept = new Map<string, ImageTagStatus>();
  private readonly writer: StatusWriter;
  private readonly ctx: WorkerContext;
  private readonly secrets = new Map<string, { at: number; secret: KubeObject | undefined }>();
  private stopped = false;

  constructor(options: PullerOptions) {
    this.o = options;
    this.informer = new Informer<NodeImage & KubeObject>(options.client, {
      resource: Resources.NodeImage,
      fieldSelector: `metadata.name=${options.node}`,
      logger: options.log,
    });
    this.writer = new StatusWriter(
      options.client,
      options.node,
      options.statusUpdateIntervalMs,
      () => this.buildStatus(),
      options.log,
    );
    const global = new Semaphore(options.maxWorkers);
    const registries = new Map<string, Semaphore>();
    this.ctx = {
      images: options.images,
      global,
      perRegistry: (r) => {
        let s = registries.get(r);
        if (!s) {
          s = new Semaphore(options.maxWorkersPerRegistry);
          registries.set(r, s);
        }
        return s;
      },
      credentials: (image) => this.credentialsFor(image),
      log: options.log,
      backoff: options.backoff,
      onFinished: (r) => {
        options.onFinished?.(r);
        this.emitEvent(r);
      },
    };
    const sync = () => this.sync();
    this.informer.addEventHandler({ add: sync, update: sync, delete: () => this.stopAll() });
  }

  /** Pulls in flight or waiting. */
  get activeWorkers(): number {
    return [...this.workers.values()].filter((w) => !w.finished).length;
  }

  /** Peak number of pulls the global cap let through. */
  get peakConcurrency(): number {
    return this.ctx.global.peak;
  }

  /** Starts following the NodeImage. */
  start(): void {
    this.informer.start();
  }

  /** Whether the NodeImage informer has listed. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  private current(): (NodeImage & KubeObject) | undefined {
    return this.informer.get(this.o.node);
  }

  private sync(): void {
    if (this.stopped) return;
    const ni = this.current();
    if (!ni) return;
    const wanted = new Set<string>();
    for (const [name, image] of Object.entries(ni.spec?.images ?? {})) {
      for (const tag of image.tags ?? []) {
        const key = workerKey(name, tag.tag);
        wanted.add(key);
        const version = tag.version ?? 0;
        const existing = this.workers.get(key);
        if (existing && (existing.tag.version ?? 0) === version) continue;
        existing?.stop();
        this.workers.delete(key);
        const reported = ni.status?.imageStatuses?.[name]?.tags?.find(
          (t) => t.tag === tag.tag && (t.version ?? 0) === version,
        );
        if (reported?.completionTime) {
          this.kept.set(key, reported);
          continue;
        }
        this.kept.delete(key);
        const worker = new PullWorker(
          name,
          tag,
          image.sandboxConfig,
          { ...this.ctx, credentials: (img) => this.credentialsFor(img, image.pullSecrets ?? []) },
          () => this.writer.poke(),
        );
        this.workers.set(key, worker);
      }
    }
    for (const [key, worker] of this.workers) {
      if (!wanted.has(key)) {
        worker.stop();
        this.workers.delete(key);
      }
    }
    for (const key of this.kept.keys()) if (!wanted.has(key)) this.kept.delete(key);
    this.writer.poke();
  }

  private buildStatus(): NodeImageStatus {
    const ni = this.current();
    const imageStatuses: NonNullable<NodeImageStatus['imageStatuses']> = {};
    const counts = { succeeded: 0, failed: 0, pulling: 0, waiting: 0 };
    let desired = 0;
    for (const [name, image] of Object.entries(ni?.spec?.images ?? {})) {
      for (const tag of image.tags ?? []) {
        desired++;
        const key = workerKey(name, tag.tag);
        const status = this.workers.get(key)?.current ?? this.kept.get(key);
        if (!status) continue;
        imageStatuses[name] ??= { tags: [] };
        imageStatuses[name].tags.push(status);
        if (status.phase === 'Succeeded') counts.succeeded++;
        else if (status.phase === 'Failed') counts.failed++;
        else if (status.phase === 'Pulling') counts.pulling++;
        else counts.waiting++;
      }
    }
    for (const s of Object.values(imageStatuses))
      s.tags.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
    return { desired, ...counts, ...(Object.keys(imageStatuses).length ? { imageStatuses } : {}) };
  }

  /** Credentials for an image from the NodeImage's pull secrets (read only in the config namespace). */
  private async credentialsFor(
    image: string,
    refs: { namespace?: string; name?: string }[] = [],
  ): Promise<Credential[]> {
    if (refs.length === 0) return [];
    const keyring = new DockerKeyring();
    const configNs = this.o.configNamespace ?? DEFAULT_DAEMON_CONFIG_NAMESPACE;
    for (const ref of refs) {
      if (ref.namespace !== configNs || !ref.name) {
        this.o.log.warn(
          { secret: `${ref.namespace}/${ref.name}` },
          'ignoring a pull secret outside the daemon config namespace',
        );
        continue;
      }
      const secret = await this.secret(configNs, ref.name);
      if (!secret) continue;
      try {
        keyring.addSecret(secret);
      } catch (err) {
        if (!(err instanceof InvalidPullSecretError)) throw err;
        this.o.log.warn(
          { secret: `${configNs}/${ref.name}`, err: err.message },
          'ignoring an unreadable pull secret',
        );
        this.warnInvalidSecret(image, `${configNs}/${ref.name}`, ref.name, err.message);
      }
    }
    return keyring.lookup(image);
  }

  /**
   * Tells users, on the NodeImage and on the jobs that named it, that a pull secret was skipped
   * (its name and why — never its contents); the pull goes on without it, as kubelet's does.
   */
  private warnInvalidSecret(image: string, secretKey: string, name: string, reason: string): void {
    const ni = this.current();
    if (!ni) return;
    const message = `Ignoring pull secret ${secretKey} for image ${image}: ${reason}`;
    this.o.recorder.event(
      { ...ni, apiVersion: 'apps.kruise.io/v1alpha1', kind: 'NodeImage' },
      'Warning',
      'InvalidPullSecret',
      message,
    );
    const owners = new Map<
      string,
      { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string }
    >();
    for (const spec of Object.values(ni.spec?.images ?? {}))
      for (const tag of spec.tags ?? [])
        if ((spec.pullSecrets ?? []).some((s) => s.name === name))
          for (const o of tag.ownerReferences ?? []) owners.set(o.uid ?? '', o);
    for (const o of owners.values())
      this.o.recorder.event(ownerObject(o), 'Warning', 'InvalidPullSecret', message);
  }

  private async secret(namespace: string, name: string): Promise<KubeObject | undefined> {
    const key = `${namespace}/${name}`;
    const cached = this.secrets.get(key);
    if (cached && Date.now() - cached.at < 5 * 60_000) return cached.secret;
    try {
      const secret = await this.o.client.get(Resources.Secret, namespace, name);
      this.secrets.set(key, { at: Date.now(), secret });
      return secret;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.o.log.warn({ secret: key }, 'pull secret not found');
      this.secrets.set(key, { at: Date.now(), secret: undefined });
      return undefined;
    }
  }

  private emitEvent(r: { image: string; tag: string; ok: boolean; seconds: number; message: string }): void {
    const ni = this.current();
    if (!ni) return;
    const ref = `${r.image}:${r.tag}`;
    const target = { ...ni, apiVersion: 'apps.kruise.io/v1alpha1', kind: 'NodeImage' };
    if (r.ok) {
      this.o.recorder.event(
        target,
        'Normal',
        'PullImageSucceed',
        `Image ${ref} has been pulled in ${r.seconds.toFixed(1)}s`,
      );
      return;
    }
    const message = `Failed to pull image ${ref}: ${r.message}`;
    this.o.recorder.event(target, 'Warning', 'PullImageFailed', message);
    const tag = ni.spec?.images?.[r.image]?.tags?.find((t) => t.tag === r.tag);
    for (const owner of tag?.ownerReferences ?? []) {
      this.o.recorder.event(ownerObject(owner), 'Warning', 'PullImageFailed', message);
    }
  }

  private stopAll(): void {
    for (const w of this.workers.values()) w.stop();
    this.workers.clear();
    this.kept.clear();
  }

  /** Stops every worker (pulls are cancelled) and writes a truthful final status: no tag stays Pulling. */
  async stop(): Promise<void> {
    this.stopped = true;
    const cancelled: [string, ImageTagStatus][] = [];
    for (const [key, w] of this.workers) {
      if (!w.finished)
        cancelled.push([
          key,
          {
            ...w.current,
            phase: 'Waiting',
            progress: 0,
            message: 'kruise-daemon stopped; the pull resumes when it restarts',
          },
        ]);
      w.stop();
    }
    for (const [key, status] of cancelled) this.kept.set(key, status);
    for (const [key, w] of this.workers) if (w.finished) this.kept.set(key, w.current);
    this.workers.clear();
    await this.writer.close();
    await this.informer.stop();
  }
}

export { parseImageReference };
