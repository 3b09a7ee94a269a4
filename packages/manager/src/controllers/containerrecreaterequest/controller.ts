import {
  type ContainerRecreateRequest,
  type ContainerRecreateRequestSyncContainerStatus,
  type ContainerRecreateState,
  CRR_ACTIVE_LABEL,
  CRR_POD_UID_LABEL,
  CRR_SYNC_CONTAINER_STATUSES_ANNOTATION,
  CRR_UNREADY_ACQUIRED_ANNOTATION,
  CRR_UNREADY_ACQUIRED_FINALIZER,
  KRUISE_POD_READY_CONDITION,
  KruiseResources,
} from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import {
  type ControllerBuilder,
  type Informer,
  isNotFound,
  type KubeClient,
  type Logger,
  type Manager,
  type ReconcileResult,
  type Request,
  requestFor,
  requestKey,
} from '@kruise/runtime';
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { trimmedPods } from '../../informers.ts';
import { hasReadinessGate, PodReadinessControl } from '../../workload/podreadiness/index.ts';
import type { AddOptions } from '../add-options.ts';
import { deleteAfterTtl, ttlAfterFinished } from '../ttl-after-finished.ts';

/** The user agent recorded in the pod's `KruisePodReady` message. */
export const CRR_USER_AGENT = 'ContainerRecreateRequest';
const BY_POD_UID = 'podUID';

type Crr = ContainerRecreateRequest;

/**
 * Adds the ContainerRecreateRequest controller (manager side): reconciles requests, queued by
 * the request itself and, for active requests, by their pod's container statuses or deletion.
 */
export function add(manager: Manager, { flags, tuning }: AddOptions): ControllerBuilder {
  const crrs = manager.informers.informerFor<Crr>({ resource: KruiseResources.ContainerRecreateRequest });
  const pods = trimmedPods(manager);
  crrs.addIndex(BY_POD_UID, (c) => {
    const uid = c.metadata?.labels?.[CRR_POD_UID_LABEL];
    return uid ? [uid] : [];
  });
  const activeOf = (pod: Pod) =>
    crrs
      .byIndex(BY_POD_UID, pod.metadata?.uid ?? '')
      .filter((c) => c.metadata?.labels?.[CRR_ACTIVE_LABEL] === 'true')
      .map(requestFor);
  const reconciler = new ContainerRecreateRequestReconciler({
    client: manager.client,
    crrs,
    pods,
    ...(tuning.crrResponseTimeoutMs ? { responseTimeoutMs: tuning.crrResponseTimeoutMs } : {}),
  });
  return manager
    .newController({
      name: 'containerrecreaterequest',
      workers: flags.crrWorkers,
      reconcile: (ctx, req) => reconciler.reconcile(ctx.log, req),
    })
    .reconciles(crrs)
    .watches(pods, {
      update: (o, n) =>
        JSON.stringify(o.status?.containerStatuses) !== JSON.stringify(n.status?.containerStatuses) ||
        (!o.metadata?.deletionTimestamp && n.metadata?.deletionTimestamp)
          ? activeOf(n)
          : undefined,
      delete: activeOf,
    });
}

/** What the ContainerRecreateRequest reconciler works with. */
export interface CrrReconcilerDeps {
  client: KubeClient;
  crrs: Informer<Crr>;
  pods: Informer<Pod>;
  /** A request never picked up by a daemon is completed after this long (upstream: 1 min). */
  responseTimeoutMs?: number;
  now?: () => number;
}

/**
 * The ContainerRecreateRequest reconciler (manager side): completes requests whose pod is gone,
 * that no daemon picked up within a minute, or that ran past activeDeadlineSeconds (marking the
 * containers that did not finish as Failed, which upstream does not, #2353); drops the `active`
 * label and applies the TTL once completed; while recreating, mirrors the pod's container
 * statuses into the `sync-container-statuses` annotation and holds the pod not-ready for the
 * unready grace period, releasing it when the request ends.
 */
export class ContainerRecreateRequestReconciler {
  private readonly d: CrrReconcilerDeps;
  private readonly now: () => number;
  private readonly readiness: PodReadinessControl;

  constructor(deps: CrrReconcilerDeps) {
    this.d = deps;
    this.readiness = new PodReadinessControl(deps.client);
    this.now = deps.now ?? Date.now;
  }

  /** Reconciles one ContainerRecreateRequest. */
  async reconcile(log: Logger, req: Request): Promise<ReconcileResult | undefined> {
    const key = requestKey(req);
    const crr = this.d.crrs.get(key);
    if (!crr) return undefined;
    const ns = crr.metadata!.namespace!;
    const name = crr.metadata!.name!;
    const podName = crr.spec?.podName ?? '';
    const pod = this.d.pods.get(`${ns}/${podName}`);
    const completed = crr.status?.phase === 'Completed';
    if (crr.metadata?.deletionTimestamp || completed) {
      if (crr.metadata?.finalizers?.includes(CRR_UNREADY_ACQUIRED_FINALIZER)) {
        await this.releasePod(crr, pod);
        return undefined;
      }
      if (!completed) return undefined;
      if (crr.metadata?.labels?.[CRR_ACTIVE_LABEL] !== undefined) {
        await this.d.client.mergePatch(KruiseResources.ContainerRecreateRequest, ns, name, {
          metadata: { labels: { [CRR_ACTIVE_LABEL]: null } },
        });
        return undefined;
      }
      if (crr.metadata?.deletionTimestamp) return undefined;
      const due = ttlAfterFinished(
        crr.status?.completionTime,
        crr.spec?.ttlSecondsAfterFinished,
        this.now(),
        log,
      );
      return deleteAfterTtl(this.d.client, KruiseResources.ContainerRecreateRequest, crr, due, log);
    }
    if (
      !pod ||
      pod.metadata?.deletionTimestamp ||
      pod.metadata?.uid !== crr.metadata?.labels?.[CRR_POD_UID_LABEL]
    ) {
      await this.complete(crr, 'pod has gone');
      return undefined;
    }
    const created = Date.parse(crr.metadata?.creationTimestamp ?? '') || this.now();
    const waits: number[] = [];
    if (!crr.status?.phase) {
      const left = created + (this.d.responseTimeoutMs ?? 60_000) - this.now();
      if (left <= 0) {
        await this.complete(crr, 'daemon has not responded for a long time');
        return undefined;
      }
      waits.push(left);
    }
    const deadline = crr.spec?.activeDeadlineSeconds;
    if (deadline != null) {
      const left = created + deadline * 1000 - this.now();
      if (left <= 0) {
        await this.complete(crr, 'recreating has exceeded the activeDeadlineSeconds', true);
        return undefined;
      }
      waits.push(left);
    }
    if (crr.status?.phase === 'Recreating') {
      await this.syncContainerStatuses(crr, pod);
      await this.acquireUnready(crr, pod, log);
    }
    return waits.length ? { requeueAfterMs: Math.min(...waits) } : undefined;
  }

  /** Completes a request; with `failUnfinished`, containers not yet Succeeded are marked Failed with the message. */
  private async complete(crr: Crr, message: string, failUnfinished = false): Promise<void> {
    const status: Record<string, unknown> = {
      phase: 'Completed',
      completionTime: kubeTime(this.now()),
      message,
    };
    if (failUnfinished) {
      const states = new Map((crr.status?.containerRecreateStates ?? []).map((s) => [s.name, s]));
      status.containerRecreateStates = (crr.spec?.containers ?? []).map((c): ContainerRecreateState => {
        const s = states.get(c.name);
        if (s && (s.phase === 'Succeeded' || s.phase === 'Failed')) return s;
        return { ...(s ?? {}), name: c.name, phase: 'Failed', message };
      });
    }
    await this.d.client.mergePatchStatus(
      KruiseResources.ContainerRecreateRequest,
      crr.metadata!.namespace,
      crr.metadata!.name!,
      { status },
    );
  }

  /** Records `{name, ready, restartCount, containerID}` of each recreated container that started after the request. */
  private async syncContainerStatuses(crr: Crr, pod: Pod): Promise<void> {
    const created = Date.parse(crr.metadata?.creationTimestamp ?? '') || 0;
    const statuses: ContainerStatus[] = [
      ...(pod.status?.initContainerStatuses ?? []),
      ...(pod.status?.containerStatuses ?? []),
    ];
    const synced: ContainerRecreateRequestSyncContainerStatus[] = [];
    for (const c of crr.spec?.containers ?? []) {
      const s = statuses.find((x) => x?.name === c.name);
      const startedAt = Date.parse(s?.state?.running?.startedAt ?? '');
      if (!s || Number.isNaN(startedAt) || startedAt < created) continue;
      synced.push({
        name: c.name,
        ready: !!s.ready,
        restartCount: s.restartCount ?? 0,
        containerID: s.containerID,
      });
    }
    const text = JSON.stringify(synced);
    if (crr.metadata?.annotations?.[CRR_SYNC_CONTAINER_STATUSES_ANNOTATION] === text) return;
    await this.d.client.mergePatch(
      KruiseResources.ContainerRecreateRequest,
      crr.metadata!.namespace,
      crr.metadata!.name!,
      {
        metadata: { annotations: { [CRR_SYNC_CONTAINER_STATUSES_ANNOTATION]: text } },
      },
    );
  }

  /** Holds the pod not-ready (when it has the KruisePodReady gate) and records when, once. */
  private async acquireUnready(crr: Crr, pod: Pod, log: Logger): Promise<void> {
    if (crr.spec?.strategy?.unreadyGracePeriodSeconds == null) return;
    if (crr.metadata?.annotations?.[CRR_UNREADY_ACQUIRED_ANNOTATION]) return;
    const ns = crr.metadata!.namespace!;
    const name = crr.metadata!.name!;
    if (hasReadinessGate(pod, KRUISE_POD_READY_CONDITION)) {
      if (!crr.metadata?.finalizers?.includes(CRR_UNREADY_ACQUIRED_FINALIZER)) {
        await this.d.client.mergePatch(KruiseResources.ContainerRecreateRequest, ns, name, {
          metadata: {
            finalizers: [...(crr.metadata?.finalizers ?? []), CRR_UNREADY_ACQUIRED_FINALIZER],
            resourceVersion: crr.metadata?.resourceVersion,
          },
        });
      }
      await this.readiness.addNotReadyKey(pod, { userAgent: CRR_USER_AGENT, key: `${ns}/${name}` });
      log.info({ pod: `${ns}/${pod.metadata?.name}` }, 'pod held not-ready for a container recreation');
    }
    await this.d.client.mergePatch(KruiseResources.ContainerRecreateRequest, ns, name, {
      metadata: { annotations: { [CRR_UNREADY_ACQUIRED_ANNOTATION]: kubeTime(this.now()) } },
    });
  }

  /** Removes this request from the pod's not-ready holders (if the pod is still there), then the finalizer. */
  private async releasePod(crr: Crr, pod: Pod | undefined): Promise<void> {
    const ns = crr.metadata!.namespace!;
    const name = crr.metadata!.name!;
    if (pod && pod.metadata?.uid === crr.metadata?.labels?.[CRR_POD_UID_LABEL]) {
      try {
        await this.readiness.removeNotReadyKey(pod, {
          userAgent: CRR_USER_AGENT,
          key: `${ns}/${name}`,
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    await this.d.client.mergePatch(KruiseResources.ContainerRecreateRequest, ns, name, {
      metadata: {
        finalizers: (crr.metadata?.finalizers ?? []).filter((f) => f !== CRR_UNREADY_ACQUIRED_FINALIZER),
        resourceVersion: crr.metadata?.resourceVersion,
      },
    });
  }
}
