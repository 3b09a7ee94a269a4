import {
  API_VERSION,
  CONTROLLER_REVISION_HASH_LABEL,
  type ImageListPullJob,
  type ImagePullJob,
  KruiseResources,
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
  requestKey,
  ScaleExpectations,
} from '@kruise/runtime';
import type { AddOptions } from '../add-options.ts';
import { deleteAfterTtl, ttlAfterFinished } from '../ttl-after-finished.ts';
import { fnv32a, stableJson } from './hash.ts';
import { listJobStatus } from './status.ts';

const NAME = 'imagelistpulljob';
const BY_OWNER = 'ownerUid';
/** Children created or deleted but not yet in the cache are awaited this long. */
const EXPECTATION_TIMEOUT_MS = 30_000;

/**
 * Adds the ImageListPullJob controller: reconciles ImageListPullJobs and owns their ImagePullJobs
 * (a child's events queue its list and settle the list's expected creations and deletions).
 */
export function add(manager: Manager, { flags }: AddOptions): ControllerBuilder {
  const lists = manager.informers.informerFor<ImageListPullJob>({
    resource: KruiseResources.ImageListPullJob,
  });
  const jobs = manager.informers.informerFor<ImagePullJob>({ resource: KruiseResources.ImagePullJob });
  jobs.addIndex(BY_OWNER, (j) =>
    (j.metadata?.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.uid),
  );
  const expectations = new ScaleExpectations(manager.expectationsOptions(NAME, EXPECTATION_TIMEOUT_MS));
  const reconciler = new ImageListPullJobReconciler({
    client: manager.client,
    lists,
    jobs,
    recorder: manager.eventRecorder('kruise-manager'),
    expectations,
  });
  return manager
    .newController({
      name: NAME,
      workers: flags.imageListPullJobWorkers,
      reconcile: (ctx, req) => reconciler.reconcile(ctx.log, req),
    })
    .reconciles(lists)
    .owns(jobs, 'ImageListPullJob', { expectations });
}

/** What the ImageListPullJob reconciler works with. */
export interface ImageListPullJobDeps {
  client: KubeClient;
  lists: Informer<ImageListPullJob>;
  jobs: Informer<ImagePullJob>;
  recorder: EventRecorder;
  expectations: ScaleExpectations;
  /** The clock (epoch milliseconds; injectable for tests). */
  now?: () => number;
}

/** The ImageListPullJob reconciler: one child ImagePullJob per image, recreated when the template changes. */
export class ImageListPullJobReconciler {
  private readonly d: ImageListPullJobDeps;
  private readonly expectations: ScaleExpectations;
  private readonly now: () => number;

  constructor(deps: ImageListPullJobDeps) {
    this.d = deps;
    this.expectations = deps.expectations;
    this.now = deps.now ?? Date.now;
  }

  /** Reconciles one ImageListPullJob. */
  async reconcile(log: Logger, req: Request): Promise<ReconcileResult | undefined> {
    const key = requestKey(req);
    const list = this.d.lists.get(key);
    if (!list) {
      this.expectations.delete(key);
      return undefined;
    }
    if (list.metadata?.deletionTimestamp) return undefined;
    if (list.status?.completionTime) {
      const due = ttlAfterFinished(
        list.status.completionTime,
        list.spec?.completionPolicy?.ttlSecondsAfterFinished,
        this.now(),
        log,
      );
      return deleteAfterTtl(this.d.client, KruiseResources.ImageListPullJob, list, due, log, {
        propagationPolicy: 'Background',
      });
    }
    if (!this.expectations.satisfied(key)) return { requeueAfterMs: 1000 };
    const { images = [], ...template } = list.spec ?? { images: [], completionPolicy: {} };
    const hash = fnv32a(stableJson(template));
    if (list.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== hash) {
      await this.d.client.mergePatch(
        KruiseResources.ImageListPullJob,
        list.metadata?.namespace,
        list.metadata?.name ?? '',
        { metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash } } },
      );
      return undefined;
    }
    const children = this.d.jobs.byIndex(BY_OWNER, list.metadata?.uid ?? '');
    const wanted = new Set(images);
    const byImage = new Map<string, ImagePullJob>();
    for (const child of children) {
      const stale =
        child.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== hash ||
        !wanted.has(child.spec?.image ?? '') ||
        byImage.has(child.spec?.image ?? '');
      if (stale) {
        if (child.metadata?.deletionTimestamp) continue;
        const name = child.metadata?.name ?? '';
        this.expectations.expectDeletion(key, name);
        await this.d.client
          .delete(KruiseResources.ImagePullJob, child.metadata?.namespace, name)
          .catch((err) => {
            if (isNotFound(err)) return;
            this.expectations.deletionObserved(key, name);
            throw err;
          });
        continue;
      }
      byImage.set(child.spec?.image ?? '', child);
    }
    const missing = images.filter((img) => !byImage.has(img));
    for (const image of missing) {
      // Expected before the create: the cache may show the new job before the create returns.
      this.expectations.expectCreations(key, 1);
      const created = await this.d.client
        .create<ImagePullJob & { metadata: Record<string, any> }>(KruiseResources.ImagePullJob, {
          metadata: {
            generateName: `${list.metadata?.name}-`,
            namespace: list.metadata?.namespace,
            labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash },
            ownerReferences: [
              {
                apiVersion: API_VERSION,
                kind: 'ImageListPullJob',
                name: list.metadata?.name,
                uid: list.metadata?.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec: { ...structuredClone(template), image },
        })
        .catch((err) => {
          this.expectations.creationObserved(key);
          throw err;
        });
      this.d.recorder.event(
        { ...list, apiVersion: API_VERSION, kind: 'ImageListPullJob' },
        'Normal',
        'Successful create ImagePullJob',
        `Created ImagePullJob ${created.metadata.name} for image ${image}`,
      );
      log.info({ job: created.metadata.name, image }, 'created an ImagePullJob');
    }
    const status = listJobStatus(list, [...byImage.values()], new Date(this.now()));
    if (JSON.stringify(status) !== JSON.stringify(list.status ?? {})) {
      await this.d.client.updateStatus(KruiseResources.ImageListPullJob, { ...list, status });
    }
    return undefined;
  }
}
