import {
  FAKE_NODEIMAGE_LABEL,
  type ImagePullJob,
  type NodeImage,
  VIRTUAL_KUBELET_LABEL,
  VIRTUAL_KUBELET_VALUE,
} from '@kruise/api';
import {
  Controller,
  type EventRecorder,
  type Informer,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  type Metrics,
  Resources,
} from '@kruise/runtime';
import { specPass } from './spec-pass.ts';
import { statusPass } from './status-pass.ts';

/** What the NodeImage controller works with. */
export interface NodeImageDeps {
  client: KubeClient;
  nodes: Informer<KubeObject>;
  nodeImages: Informer<NodeImage>;
  jobs: Informer<ImagePullJob>;
  recorder: EventRecorder;
  /** `--nodeimage-creation-delay`: a Node must be Ready this long before it gets a NodeImage. */
  creationDelayMs: number;
  /** A tag the daemon never reports is failed after this long (upstream: 10 min). */
  responseTimeoutMs: number;
  workers: number;
  logger: Logger;
  metrics?: Metrics;
}

/** Index of NodeImages by the UIDs of the jobs owning their tags. */
const BY_OWNER = 'tagOwner';

const isVirtualKubelet = (node: KubeObject | undefined) =>
  node?.metadata?.labels?.[VIRTUAL_KUBELET_LABEL] === VIRTUAL_KUBELET_VALUE;

/** Requeue delays under 3 s become 3–5 s, as upstream does. */
const atLeast3s = (ms: number) => (ms < 3000 ? 3000 + Math.floor(Math.random() * 2000) : ms);

/** The NodeImage controller: one NodeImage per Ready Node; spec clean-up; failing tags the daemon never finished. */
export class NodeImageController {
  readonly controller: Controller;
  private readonly d: NodeImageDeps;

  constructor(deps: NodeImageDeps) {
    this.d = deps;
    this.controller = new Controller({
      name: 'nodeimage',
      workers: deps.workers,
      logger: deps.logger,
      metrics: deps.metrics,
      reconcile: (ctx, key) => this.reconcile(ctx.log, key),
    });
    const enqueueName = (o: KubeObject) => this.controller.enqueue(o.metadata?.name ?? '');
    deps.nodeImages.addIndex(BY_OWNER, (ni) => {
      const uids: string[] = [];
      for (const image of Object.values(ni.spec?.images ?? {}))
        for (const t of image.tags ?? [])
          for (const o of t.ownerReferences ?? []) if (o.uid) uids.push(o.uid);
      return uids;
    });
    deps.nodes.addEventHandler({
      add: (n) => !isVirtualKubelet(n) && enqueueName(n),
      update: (o, n) => {
        if (isVirtualKubelet(n)) return;
        const ready = (x: KubeObject) =>
          JSON.stringify((x.status?.conditions ?? []).find((c: any) => c.type === 'Ready') ?? null);
        if (
          ready(o) !== ready(n) ||
          JSON.stringify(o.metadata?.labels) !== JSON.stringify(n.metadata?.labels) ||
          o.metadata?.deletionTimestamp !== n.metadata?.deletionTimestamp
        )
          enqueueName(n);
      },
      delete: enqueueName,
    });
    deps.nodeImages.addEventHandler({
      add: enqueueName,
      update: (_o, n) => enqueueName(n),
      delete: enqueueName,
    });
    deps.jobs.addEventHandler({
      delete: (job) => {
        for (const ni of deps.nodeImages.byIndex(BY_OWNER, job.metadata?.uid ?? '')) enqueueName(ni);
      },
    });
  }

  private async reconcile(log: Logger, name: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const node = this.d.nodes.get(name);
    const cached = this.d.nodeImages.get(name);
    const fake = cached?.metadata?.labels?.[FAKE_NODEIMAGE_LABEL] !== undefined;
    if (!node || node.metadata?.deletionTimestamp || isVirtualKubelet(node)) {
      if (cached && !fake) {
        await this.d.client.delete(Resources.NodeImage, undefined, name).catch((err) => {
          if (!isNotFound(err)) throw err;
        });
        log.info({ node: name }, 'deleted the NodeImage of a removed node');
      }
      if (!cached || !fake) return undefined;
    }
    if (!cached) {
      const ready = (node?.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
      if (ready?.status !== 'True') return undefined;
      const readyFor = Date.now() - (Date.parse(ready.lastTransitionTime ?? '') || 0);
      if (readyFor < this.d.creationDelayMs) return { requeueAfterMs: this.d.creationDelayMs - readyFor };
      try {
        await this.d.client.create(Resources.NodeImage, {
          metadata: { name, labels: { ...(node?.metadata?.labels ?? {}) } },
          spec: {},
        });
        log.info({ node: name }, 'created a NodeImage');
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      return undefined;
    }
    const now = new Date();
    const { next, nextExpiry } = await specPass(cached, node?.metadata?.labels ?? {}, {
      now,
      job: (ns, n) => this.d.jobs.get(`${ns}/${n}`),
      secretExists: async (ns, n) => {
        try {
          await this.d.client.get(Resources.Secret, ns, n);
          return true;
        } catch (err) {
          if (isNotFound(err)) return false;
          throw err;
        }
      },
    });
    const specChanged =
      JSON.stringify(next.spec ?? {}) !== JSON.stringify(cached.spec ?? {}) ||
      JSON.stringify(next.metadata?.labels ?? {}) !== JSON.stringify(cached.metadata?.labels ?? {});
    if (specChanged) {
      await this.d.client.update(Resources.NodeImage, next);
      return undefined;
    }
    const { status, failed, nextCheck } = statusPass(cached, now.getTime(), this.d.responseTimeoutMs);
    for (const f of failed) {
      const message = `Failed to pull image ${f.image}:${f.tag} on node ${name} for ${f.message}`;
      for (const owner of f.owners) {
        const job = this.d.jobs.get(`${owner.namespace}/${owner.name}`);
        if (job)
          this.d.recorder.event(
            { ...job, apiVersion: 'apps.kruise.io/v1alpha1', kind: 'ImagePullJob' },
            'Warning',
            'PullImageFailed',
            message,
          );
      }
      this.d.recorder.event(
        { ...cached, apiVersion: 'apps.kruise.io/v1alpha1', kind: 'NodeImage' },
        'Warning',
        'PullImageFailed',
        message,
      );
    }
    if (JSON.stringify(status) !== JSON.stringify(cached.status ?? {})) {
      await this.d.client.updateStatus(Resources.NodeImage, { ...cached, status });
      return undefined;
    }
    const waits = [nextExpiry, nextCheck]
      .filter((x): x is number => x !== undefined)
      .map((t) => t - now.getTime());
    return waits.length ? { requeueAfterMs: atLeast3s(Math.min(...waits)) } : undefined;
  }
}
