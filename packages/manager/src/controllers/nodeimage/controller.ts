import {
  FAKE_NODEIMAGE_LABEL,
  type ImagePullJob,
  KruiseResources,
  type NodeImage,
  VIRTUAL_KUBELET_LABEL,
  VIRTUAL_KUBELET_VALUE,
} from '@kruise/api';
import {
  type ControllerBuilder,
  type EventRecorder,
  type Informer,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type Logger,
  type Manager,
  type ReconcileResult,
  type Request,
  Resources,
  requestFor,
} from '@kruise/runtime';
import type { Node } from 'kubernetes-types/core/v1.js';
import { trimmedNodeImages, trimmedNodes } from '../../informers.ts';
import type { AddOptions } from '../add-options.ts';
import { specPass } from './spec-pass.ts';
import { statusPass } from './status-pass.ts';

/** Index of NodeImages by the UIDs of the jobs owning their tags. */
const BY_OWNER = 'tagOwner';

const isVirtualKubelet = (node: Node | undefined) =>
  node?.metadata?.labels?.[VIRTUAL_KUBELET_LABEL] === VIRTUAL_KUBELET_VALUE;

const readyCondition = (node: Node | undefined) =>
  (node?.status?.conditions ?? []).find((c) => c.type === 'Ready');

/** Requeue delays under 3 s become 3–5 s, as upstream does. */
const atLeast3s = (ms: number) => (ms < 3000 ? 3000 + Math.floor(Math.random() * 2000) : ms);

/**
 * Adds the NodeImage controller: a NodeImage per Node (keyed by the node's name), queued by the
 * Node's readiness, labels and deletion, by the NodeImage itself, and by the deletion of a job
 * owning one of its tags.
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const nodes = trimmedNodes(manager);
  const nodeImages = trimmedNodeImages(manager);
  const jobs = manager.informers.informerFor<ImagePullJob>({ resource: KruiseResources.ImagePullJob });
  nodeImages.addIndex(BY_OWNER, (ni) => {
    const uids: string[] = [];
    for (const image of Object.values(ni.spec?.images ?? {}))
      for (const t of image.tags ?? []) for (const o of t.ownerReferences ?? []) if (o.uid) uids.push(o.uid);
    return uids;
  });
  const reconciler = new NodeImageReconciler({
    client: manager.client,
    nodes,
    nodeImages,
    jobs,
    recorder: manager.eventRecorder('kruise-manager'),
    creationDelayMs: flags.nodeImageCreationDelayMs,
    responseTimeoutMs: tuning.responseTimeoutMs ?? 10 * 60_000,
  });
  return manager
    .newController({
      name: 'nodeimage',
      workers: flags.nodeImageWorkers,
      reconcile: (ctx, req) => reconciler.reconcile(ctx.log, req),
    })
    .reconciles(nodeImages)
    .watches(nodes, {
      add: (n) => !isVirtualKubelet(n) && requestFor(n),
      update: (o, n) => {
        if (isVirtualKubelet(n)) return undefined;
        const changed =
          JSON.stringify(readyCondition(o) ?? null) !== JSON.stringify(readyCondition(n) ?? null) ||
          JSON.stringify(o.metadata?.labels) !== JSON.stringify(n.metadata?.labels) ||
          o.metadata?.deletionTimestamp !== n.metadata?.deletionTimestamp;
        return changed && requestFor(n);
      },
      delete: (n) => requestFor(n),
    })
    .watches(jobs, {
      delete: (job) => nodeImages.byIndex(BY_OWNER, job.metadata?.uid ?? '').map(requestFor),
    });
}

/** What the NodeImage reconciler works with. */
export interface NodeImageDeps {
  client: KubeClient;
  nodes: Informer<Node>;
  nodeImages: Informer<NodeImage>;
  jobs: Informer<ImagePullJob>;
  recorder: EventRecorder;
  /** `--nodeimage-creation-delay`: a Node must be Ready this long before it gets a NodeImage. */
  creationDelayMs: number;
  /** A tag the daemon never reports is failed after this long (upstream: 10 min). */
  responseTimeoutMs: number;
}

/** The NodeImage reconciler: one NodeImage per Ready Node; spec clean-up; failing tags the daemon never finished. */
export class NodeImageReconciler {
  private readonly d: NodeImageDeps;

  constructor(deps: NodeImageDeps) {
    this.d = deps;
  }

  /** Reconciles the NodeImage of one node. */
  async reconcile(log: Logger, { name }: Request): Promise<ReconcileResult | undefined> {
    const node = this.d.nodes.get(name);
    const cached = this.d.nodeImages.get(name);
    const fake = cached?.metadata?.labels?.[FAKE_NODEIMAGE_LABEL] !== undefined;
    if (!node || node.metadata?.deletionTimestamp || isVirtualKubelet(node)) {
      if (cached && !fake) {
        await this.d.client.delete(KruiseResources.NodeImage, undefined, name).catch((err) => {
          if (!isNotFound(err)) throw err;
        });
        log.info({ node: name }, 'deleted the NodeImage of a removed node');
      }
      if (!cached || !fake) return undefined;
    }
    if (!cached) {
      const ready = readyCondition(node);
      if (ready?.status !== 'True') return undefined;
      const readyFor = Date.now() - (Date.parse(ready.lastTransitionTime ?? '') || 0);
      if (readyFor < this.d.creationDelayMs) return { requeueAfterMs: this.d.creationDelayMs - readyFor };
      try {
        await this.d.client.create(KruiseResources.NodeImage, {
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
      await this.d.client.update(KruiseResources.NodeImage, next);
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
      await this.d.client.updateStatus(KruiseResources.NodeImage, { ...cached, status });
      return undefined;
    }
    const waits = [nextExpiry, nextCheck]
      .filter((x): x is number => x !== undefined)
      .map((t) => t - now.getTime());
    return waits.length ? { requeueAfterMs: atLeast3s(Math.min(...waits)) } : undefined;
  }
}
