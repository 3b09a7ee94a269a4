import {
  API_VERSION,
  CONTROLLER_REVISION_HASH_LABEL,
  type ImageListPullJob,
  type ImagePullJob,
} from '@kruise/api';
import {
  Controller,
  type EventRecorder,
  Expectations,
  type Informer,
  isNotFound,
  type KubeClient,
  type Logger,
  type Metrics,
  objectKey,
  Resources,
} from '@kruise/runtime';
import { fnv32a, stableJson } from './hash.ts';
import { listJobStatus } from './status.ts';

/** What the ImageListPullJob controller works with. */
export interface ImageListPullJobDeps {
  client: KubeClient;
  lists: Informer<ImageListPullJob>;
  jobs: Informer<ImagePullJob>;
  recorder: EventRecorder;
  workers: number;
  logger: Logger;
  metrics?: Metrics;
}

const BY_OWNER = 'ownerUid';

/** The ImageListPullJob controller: one child ImagePullJob per image, recreated when the template changes. */
export class ImageListPullJobController {
  readonly controller: Controller;
  private readonly d: ImageListPullJobDeps;
  private readonly expectations = new Expectations(30_000);

  constructor(deps: ImageListPullJobDeps) {
    this.d = deps;
    this.controller = new Controller({
      name: 'imagelistpulljob',
      workers: deps.workers,
      logger: deps.logger,
      metrics: deps.metrics,
      reconcile: (ctx, key) => this.reconcile(ctx.log, key),
    });
    deps.jobs.addIndex(BY_OWNER, (j) =>
      (j.metadata?.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.uid),
    );
    const enqueue = (l: ImageListPullJob) => this.controller.enqueue(objectKey(l));
    deps.lists.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n), delete: enqueue });
    const parentOf = (job: ImagePullJob) => {
      const ref = (job.metadata?.ownerReferences ?? []).find(
        (r) => r.controller && r.kind === 'ImageListPullJob',
      );
      return ref ? `${job.metadata?.namespace}/${ref.name}` : undefined;
    };
    deps.jobs.addEventHandler({
      add: (j) => {
        const p = parentOf(j);
        if (!p) return;
        this.expectations.observeCreation(p, objectKey(j));
        this.controller.enqueue(p);
      },
      update: (_o, j) => {
        const p = parentOf(j);
        if (p) this.controller.enqueue(p);
      },
      delete: (j) => {
        const p = parentOf(j);
        if (!p) return;
        this.expectations.observeDeletion(p, objectKey(j));
        this.controller.enqueue(p);
      },
    });
  }

  private async reconcile(log: Logger, key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const list = this.d.lists.get(key);
    if (!list) {
      this.expectations.delete(key);
      return undefined;
    }
    if (list.metadata?.deletionTimestamp) return undefined;
    if (list.status?.completionTime) {
      const ttl = list.spec?.completionPolicy?.ttlSecondsAfterFinished;
      if (ttl === undefined || ttl === null) return undefined;
      const left = Date.parse(list.status.completionTime) + ttl * 1000 - Date.now();
      if (left > 0) return { requeueAfterMs: left };
      await this.d.client
        .delete(Resources.ImageListPullJob, list.metadata?.namespace, list.metadata?.name ?? '', {
          propagationPolicy: 'Background',
        })
        .catch((err) => {
          if (!isNotFound(err)) throw err;
        });
      return undefined;
    }
    if (!this.expectations.satisfied(key)) return { requeueAfterMs: 1000 };
    const { images = [], ...template } = list.spec ?? { images: [], completionPolicy: {} };
    const hash = fnv32a(stableJson(template));
    if (list.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== hash) {
      await this.d.client.mergePatch(
        Resources.ImageListPullJob,
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
        this.expectations.expectDeletion(key, objectKey(child));
        await this.d.client
          .delete(Resources.ImagePullJob, child.metadata?.namespace, child.metadata?.name ?? '')
          .catch((err) => {
            if (!isNotFound(err)) throw err;
          });
        continue;
      }
      byImage.set(child.spec?.image ?? '', child);
    }
    const missing = images.filter((img) => !byImage.has(img));
    for (const image of missing) {
      const created = await this.d.client.create<ImagePullJob & { metadata: Record<string, any> }>(
        Resources.ImagePullJob,
        {
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
        },
      );
      this.expectations.expectCreation(key, objectKey(created));
      this.d.recorder.event(
        { ...list, apiVersion: API_VERSION, kind: 'ImageListPullJob' },
        'Normal',
        'Successful create ImagePullJob',
        `Created ImagePullJob ${created.metadata.name} for image ${image}`,
      );
      log.info({ job: created.metadata.name, image }, 'created an ImagePullJob');
    }
    const status = listJobStatus(list, [...byImage.values()], new Date());
    if (JSON.stringify(status) !== JSON.stringify(list.status ?? {})) {
      await this.d.client.updateStatus(Resources.ImageListPullJob, { ...list, status });
    }
    return undefined;
  }
}
