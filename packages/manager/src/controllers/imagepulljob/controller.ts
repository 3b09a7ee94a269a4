import { DELETION_PROTECTION_FINALIZER, type ImagePullJob, type NodeImage } from '@kruise/api';
import {
  Controller,
  type EventRecorder,
  type Informer,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  type Metrics,
  objectKey,
  Resources,
  retryOnConflict,
  splitKey,
} from '@kruise/runtime';
import { labelSelectorMatches } from '../../labels.ts';
import { parallelismValue } from '../../webhooks/validation.ts';
import { changedImageTags } from './event-filter.ts';
import { imageTagKey, isActiveJob, jobImage } from './job-image.ts';
import type { SecretSync } from './secrets.ts';
import { activeScheduledPod, selectNodeImages } from './selection.ts';
import { calculateStatus } from './status.ts';
import { applyJobTag, type TagSettings } from './tag-spec.ts';

/** What the ImagePullJob controller works with. */
export interface ImagePullJobDeps {
  client: KubeClient;
  jobs: Informer<ImagePullJob>;
  nodeImages: Informer<NodeImage>;
  pods: Informer<KubeObject>;
  secrets: SecretSync;
  sourceSecrets: Informer<KubeObject>;
  recorder: EventRecorder;
  settings: TagSettings;
  workers: number;
  logger: Logger;
  metrics?: Metrics;
}

/** Index of active jobs by the `name:tag` they pull. */
const BY_IMAGE_TAG = 'imageTag';
/** How long a NodeImage this controller wrote counts as synced before the cache shows it. */
const PENDING_SYNC_MS = 60_000;
/** NodeImages one reconcile updates at once. */
const SYNC_CONCURRENCY = 16;

/** The ImagePullJob controller: selects NodeImages, puts the tag on them within parallelism, reports status. */
export class ImagePullJobController {
  readonly controller: Controller;
  private readonly d: ImagePullJobDeps;
  private readonly pending = new Map<string, Map<string, number>>();

  constructor(deps: ImagePullJobDeps) {
    this.d = deps;
    this.controller = new Controller({
      name: 'imagepulljob',
      workers: deps.workers,
      logger: deps.logger,
      metrics: deps.metrics,
      reconcile: (ctx, key) => this.reconcile(ctx.log, key),
    });
    const enqueue = (job: ImagePullJob) => this.controller.enqueue(objectKey(job));
    deps.jobs.addIndex(BY_IMAGE_TAG, (job) => {
      const img = isActiveJob(job) ? jobImage(job) : undefined;
      return img ? [imageTagKey(img.name, img.tag)] : [];
    });
    deps.jobs.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n), delete: enqueue });
    deps.nodeImages.addEventHandler({
      add: () => this.enqueueActive(),
      delete: () => this.enqueueActive(),
      update: (o, n) => {
        for (const tag of changedImageTags(o, n))
          for (const job of deps.jobs.byIndex(BY_IMAGE_TAG, tag)) enqueue(job);
        if (JSON.stringify(o.metadata?.labels ?? {}) !== JSON.stringify(n.metadata?.labels ?? {})) {
          for (const job of this.activeJobs()) {
            const sel = job.spec?.selector;
            if (
              sel &&
              !sel.names?.length &&
              labelSelectorMatches(sel, o.metadata?.labels) !== labelSelectorMatches(sel, n.metadata?.labels)
            )
              enqueue(job);
          }
        }
      },
    });
    const podChanged = (o: KubeObject | undefined, n: KubeObject) => {
      if (
        o &&
        o.spec?.nodeName === n.spec?.nodeName &&
        JSON.stringify(o.metadata?.labels) === JSON.stringify(n.metadata?.labels) &&
        activeScheduledPod(o) === activeScheduledPod(n)
      )
        return;
      for (const job of this.activeJobs()) {
        if (!job.spec?.podSelector || job.metadata?.namespace !== n.metadata?.namespace) continue;
        if (
          labelSelectorMatches(job.spec.podSelector, n.metadata?.labels) ||
          (o && labelSelectorMatches(job.spec.podSelector, o.metadata?.labels))
        )
          enqueue(job);
      }
    };
    deps.pods.addEventHandler({
      add: (p) => podChanged(undefined, p),
      update: podChanged,
      delete: (p) => podChanged(undefined, p),
    });
    deps.sourceSecrets.addEventHandler({
      update: (o, n) => {
        if (JSON.stringify(o.data ?? {}) === JSON.stringify(n.data ?? {})) return;
        for (const job of this.activeJobs()) {
          if (
            job.metadata?.namespace === n.metadata?.namespace &&
            job.spec?.pullSecrets?.includes(n.metadata?.name)
          )
            enqueue(job);
        }
      },
    });
  }

  private activeJobs(): ImagePullJob[] {
    return this.d.jobs.list().filter(isActiveJob);
  }

  private enqueueActive(): void {
    for (const job of this.activeJobs()) this.controller.enqueue(objectKey(job));
  }

  private pendingFor(key: string): Set<string> {
    const m = this.pending.get(key);
    if (!m) return new Set();
    const now = Date.now();
    for (const [node, until] of m) if (until < now) m.delete(node);
    return new Set(m.keys());
  }

  private async reconcile(log: Logger, key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const cached = this.d.jobs.get(key);
    if (!cached) {
      this.pending.delete(key);
      return undefined;
    }
    const job = structuredClone(cached);
    if (job.metadata?.deletionTimestamp) {
      await this.d.secrets.release(key);
      await this.removeFinalizer(job);
      this.pending.delete(key);
      return undefined;
    }
    if (job.status?.completionTime) {
      await this.d.secrets.release(key);
      this.pending.delete(key);
      const ttl = job.spec?.completionPolicy?.ttlSecondsAfterFinished;
      if (ttl === undefined || ttl === null) return undefined;
      const left = Date.parse(job.status.completionTime) + ttl * 1000 - Date.now();
      if (left > 0) return { requeueAfterMs: left };
      await this.d.client
        .delete(Resources.ImagePullJob, job.metadata?.namespace, job.metadata?.name ?? '')
        .catch((err) => {
          if (!isNotFound(err)) throw err;
        });
      log.info({}, 'deleted a finished job after its TTL');
      return undefined;
    }
    if (!(job.metadata?.finalizers ?? []).includes(DELETION_PROTECTION_FINALIZER)) {
      await this.d.client.mergePatch(
        Resources.ImagePullJob,
        job.metadata?.namespace,
        job.metadata?.name ?? '',
        {
          metadata: {
            finalizers: [...(job.metadata?.finalizers ?? []), DELETION_PROTECTION_FINALIZER],
            resourceVersion: job.metadata?.resourceVersion,
          },
        },
      );
      return undefined;
    }
    const image = jobImage(job);
    if (!image) {
      log.warn({ image: job.spec?.image }, 'job image does not parse');
      return undefined;
    }
    const nodeImages = new Map(this.d.nodeImages.list().map((ni) => [ni.metadata?.name ?? '', ni]));
    const selected = selectNodeImages(job, nodeImages, () => this.d.pods.list());
    const secretRefs = await this.d.secrets.sync(job);
    const keepSources = new Set((job.spec?.pullSecrets ?? []).map((n) => `${job.metadata?.namespace}/${n}`));
    await this.d.secrets.release(key, keepSources);
    const now = this.d.settings.now();
    const pendingNodes = this.pendingFor(key);
    const result = calculateStatus({ job, nodeImages: selected, image, secretRefs, pendingNodes, now });
    for (const [node, state] of result.states) if (state !== 'notSynced') this.pending.get(key)?.delete(node);
    if (!result.completed) {
      const active = [...result.states.values()].filter((s) => s === 'active').length;
      const slots = parallelismValue(job.spec?.parallelism) - active;
      const candidates = [...result.states]
        .filter(([, s]) => s === 'notSynced')
        .map(([n]) => n)
        .sort()
        .slice(0, Math.max(0, slots));
      const m = this.pending.get(key) ?? new Map<string, number>();
      this.pending.set(key, m);
      let next = 0;
      const worker = async () => {
        while (next < candidates.length) {
          const node = candidates[next++]!;
          await this.syncNodeImage(node, job, image, secretRefs);
          m.set(node, Date.now() + PENDING_SYNC_MS);
          result.states.set(node, 'active');
          result.status.active = (result.status.active ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: Math.min(SYNC_CONCURRENCY, candidates.length) }, worker));
    }
    if (JSON.stringify(result.status) !== JSON.stringify(job.status ?? {})) {
      await this.d.client.updateStatus(Resources.ImagePullJob, { ...job, status: result.status });
      return undefined;
    }
    const deadline = job.spec?.completionPolicy?.activeDeadlineSeconds;
    if (
      (job.spec?.completionPolicy?.type ?? 'Always') === 'Always' &&
      deadline !== undefined &&
      deadline !== null &&
      result.status.startTime
    ) {
      return {
        requeueAfterMs: Math.max(1000, Date.parse(result.status.startTime) + deadline * 1000 - now.getTime()),
      };
    }
    return undefined;
  }

  private async syncNodeImage(
    name: string,
    job: ImagePullJob,
    image: { name: string; tag: string },
    secretRefs: { namespace?: string; name?: string; mode?: string }[],
  ): Promise<void> {
    await retryOnConflict(async () => {
      let ni: NodeImage;
      try {
        ni = await this.d.client.get<NodeImage & KubeObject>(Resources.NodeImage, undefined, name);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (!applyJobTag(ni, job, image, secretRefs, this.d.settings)) return;
      await this.d.client.update(Resources.NodeImage, ni);
    });
  }

  private async removeFinalizer(job: ImagePullJob): Promise<void> {
    const finalizers = job.metadata?.finalizers ?? [];
    if (!finalizers.includes(DELETION_PROTECTION_FINALIZER)) return;
    try {
      await this.d.client.jsonPatch(
        Resources.ImagePullJob,
        job.metadata?.namespace,
        job.metadata?.name ?? '',
        [
          { op: 'test', path: '/metadata/resourceVersion', value: job.metadata?.resourceVersion },
          {
            op: 'replace',
            path: '/metadata/finalizers',
            value: finalizers.filter((f) => f !== DELETION_PROTECTION_FINALIZER),
          },
        ],
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

export { splitKey };
