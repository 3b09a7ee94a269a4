import {
  DELETION_PROTECTION_FINALIZER,
  type ImagePullJob,
  KruiseResources,
  type NodeImage,
  parallelismValue,
  SECRET_SOURCE_KEY_ANNOTATION,
} from '@kruise/api';
import {
  type ControllerBuilder,
  type EventRecorder,
  type Informer,
  isNotFound,
  type KubeClient,
  type Logger,
  type Manager,
  type ReconcileResult,
  type Request,
  Resources,
  requestFor,
  requestKey,
  retryOnConflict,
  ScaleExpectations,
} from '@kruise/runtime';
import type { Pod, Secret } from 'kubernetes-types/core/v1.js';
import { trimmedNodeImages, trimmedPods } from '../../informers.ts';
import type { AddOptions } from '../add-options.ts';
import { deleteAfterTtl, ttlAfterFinished } from '../ttl-after-finished.ts';
import {
  changedImageTags,
  jobsSelectingChangedLabels,
  jobsSelectingPod,
  jobsUsingChangedSecret,
} from './event-filter.ts';
import { imageTagKey, isActiveJob, jobImage } from './job-image.ts';
import { SecretSync } from './secrets.ts';
import { selectNodeImages } from './selection.ts';
import { calculateStatus } from './status.ts';
import { applyJobTag, type TagSettings } from './tag-spec.ts';

const NAME = 'imagepulljob';
/** Index of active jobs by the `name:tag` they pull. */
const BY_IMAGE_TAG = 'imageTag';
/** Index of the shared copies of pull secrets by the `namespace/name` of their source. */
const BY_SOURCE_KEY = 'sourceKey';
/** How long a NodeImage this controller wrote counts as synced before the cache shows it. */
const PENDING_SYNC_MS = 60_000;
/** NodeImages one reconcile updates at once. */
const SYNC_CONCURRENCY = 16;

/**
 * Adds the ImagePullJob controller: reconciles ImagePullJobs; queued by the job itself, by NodeImage
 * changes of its image tag or of labels its selector reads, by pods its podSelector matches, and by
 * changes of its pull secrets' data (kept in shared copies in the daemon's config namespace).
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const f = manager.informers;
  const jobs = f.informerFor<ImagePullJob>({ resource: KruiseResources.ImagePullJob });
  const nodeImages = trimmedNodeImages(manager);
  const pods = trimmedPods(manager);
  const secrets = f.informerFor<Secret>({ resource: Resources.Secret });
  const configNamespace = flags.daemonConfigNamespace;
  const sourceKeyOf = (s: Secret) =>
    s.metadata?.namespace === configNamespace
      ? s.metadata?.annotations?.[SECRET_SOURCE_KEY_ANNOTATION]
      : undefined;
  secrets.addIndex(BY_SOURCE_KEY, (s) => {
    const k = sourceKeyOf(s);
    return k ? [k] : [];
  });
  jobs.addIndex(BY_IMAGE_TAG, (job) => {
    const img = isActiveJob(job) ? jobImage(job) : undefined;
    return img ? [imageTagKey(img.name, img.tag)] : [];
  });
  const secretSync = new SecretSync(
    manager.client,
    {
      source: (ns, name) => secrets.get(`${ns}/${name}`),
      copyOf: (sourceKey) => secrets.byIndex(BY_SOURCE_KEY, sourceKey)[0],
      copies: () => secrets.list().filter((s) => sourceKeyOf(s)),
    },
    configNamespace,
    manager.log,
  );
  const reconciler = new ImagePullJobReconciler({
    client: manager.client,
    jobs,
    nodeImages,
    pods,
    secrets: secretSync,
    recorder: manager.eventRecorder('kruise-manager'),
    expectations: new ScaleExpectations(manager.expectationsOptions(NAME, PENDING_SYNC_MS)),
    settings: {
      defaultTtlSecondsForAlways: flags.defaultTtlSecondsForAlwaysNodeImage,
      random: tuning.random ?? Math.random,
      now: () => new Date(),
    },
  });
  const activeJobs = () => jobs.list().filter(isActiveJob);
  return manager
    .newController({
      name: NAME,
      workers: flags.imagePullJobWorkers,
      reconcile: (ctx, req) => reconciler.reconcile(ctx.log, req),
    })
    .reconciles(jobs)
    .watches(nodeImages, {
      add: () => activeJobs().map(requestFor),
      delete: () => activeJobs().map(requestFor),
      update: (o, n) =>
        [
          ...[...changedImageTags(o, n)].flatMap((tag) => jobs.byIndex(BY_IMAGE_TAG, tag)),
          ...jobsSelectingChangedLabels(activeJobs(), o, n),
        ].map(requestFor),
    })
    .watches(pods, {
      add: (p) => jobsSelectingPod(activeJobs(), undefined, p).map(requestFor),
      update: (o, n) => jobsSelectingPod(activeJobs(), o, n).map(requestFor),
      delete: (p) => jobsSelectingPod(activeJobs(), undefined, p).map(requestFor),
    })
    .watches(secrets, {
      update: (o, n) => jobsUsingChangedSecret(activeJobs(), o, n).map(requestFor),
    });
}

/** What the ImagePullJob reconciler works with. */
export interface ImagePullJobDeps {
  client: KubeClient;
  jobs: Informer<ImagePullJob>;
  nodeImages: Informer<NodeImage>;
  pods: Informer<Pod>;
  secrets: SecretSync;
  recorder: EventRecorder;
  /** Per job, the NodeImages it tagged that the cache does not show tagged yet (by node name). */
  expectations: ScaleExpectations;
  settings: TagSettings;
}

/** The ImagePullJob reconciler: selects NodeImages, puts the tag on them within parallelism, reports status. */
export class ImagePullJobReconciler {
  private readonly d: ImagePullJobDeps;
  private readonly expectations: ScaleExpectations;

  constructor(deps: ImagePullJobDeps) {
    this.d = deps;
    this.expectations = deps.expectations;
  }

  /** Reconciles one ImagePullJob. */
  async reconcile(log: Logger, req: Request): Promise<ReconcileResult | undefined> {
    const key = requestKey(req);
    const cached = this.d.jobs.get(key);
    if (!cached) {
      this.expectations.delete(key);
      return undefined;
    }
    const job = structuredClone(cached);
    if (job.metadata?.deletionTimestamp) {
      await this.d.secrets.release(key);
      await this.removeFinalizer(job);
      this.expectations.delete(key);
      return undefined;
    }
    if (job.status?.completionTime) {
      await this.d.secrets.release(key);
      this.expectations.delete(key);
      const due = ttlAfterFinished(
        job.status.completionTime,
        job.spec?.completionPolicy?.ttlSecondsAfterFinished,
        this.d.settings.now().getTime(),
        log,
      );
      return deleteAfterTtl(this.d.client, KruiseResources.ImagePullJob, job, due, log);
    }
    if (!(job.metadata?.finalizers ?? []).includes(DELETION_PROTECTION_FINALIZER)) {
      await this.d.client.mergePatch(
        KruiseResources.ImagePullJob,
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
    // Nodes this job tagged whose NodeImage the cache does not show tagged yet (for a minute at most).
    const pendingNodes = this.expectations.awaitedCreations(key);
    const result = calculateStatus({ job, nodeImages: selected, image, secretRefs, pendingNodes, now });
    for (const [node, state] of result.states)
      if (state !== 'notSynced') this.expectations.creationObserved(key, node);
    if (!result.completed) {
      const active = [...result.states.values()].filter((s) => s === 'active').length;
      const slots = parallelismValue(job.spec?.parallelism) - active;
      const candidates = [...result.states]
        .filter(([, s]) => s === 'notSynced')
        .map(([n]) => n)
        .sort()
        .slice(0, Math.max(0, slots));
      let next = 0;
      const worker = async () => {
        while (next < candidates.length) {
          const node = candidates[next++]!;
          await this.syncNodeImage(node, job, image, secretRefs);
          this.expectations.expectCreation(key, node);
          result.states.set(node, 'active');
          result.status.active = (result.status.active ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: Math.min(SYNC_CONCURRENCY, candidates.length) }, worker));
    }
    if (JSON.stringify(result.status) !== JSON.stringify(job.status ?? {})) {
      await this.d.client.updateStatus(KruiseResources.ImagePullJob, { ...job, status: result.status });
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

  /**
   * Puts the job's tag on one NodeImage. The first attempt starts from the cached copy (no GET: at
   * 10,000 nodes that is 10,000 reads per job); a stale copy fails on its resourceVersion, and each
   * retry reads the server's.
   */
  private async syncNodeImage(
    name: string,
    job: ImagePullJob,
    image: { name: string; tag: string },
    secretRefs: { namespace?: string; name?: string; mode?: string }[],
  ): Promise<void> {
    let cached = this.d.nodeImages.get(name);
    await retryOnConflict(async () => {
      let ni: NodeImage;
      try {
        ni = cached
          ? structuredClone(cached)
          : await this.d.client.get<NodeImage>(KruiseResources.NodeImage, undefined, name);
        cached = undefined;
        if (!applyJobTag(ni, job, image, secretRefs, this.d.settings)) return;
        await this.d.client.update(KruiseResources.NodeImage, ni);
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
    });
  }

  private async removeFinalizer(job: ImagePullJob): Promise<void> {
    const finalizers = job.metadata?.finalizers ?? [];
    if (!finalizers.includes(DELETION_PROTECTION_FINALIZER)) return;
    try {
      await this.d.client.jsonPatch(
        KruiseResources.ImagePullJob,
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
