import { nodeUpdateIgnorable } from '@kruise/kube-compat/daemon-placement';
import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import { controllerEvent } from '../controller-events.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { claimPods } from '../workloads/adoption.ts';
import { KeyQueue } from '../workloads/key-queue.ts';
import { controllerOf } from '../workloads/pod-state.ts';
import { RevisionHistory } from '../workloads/revision-history.ts';
import { managePlan, type NodePlan } from './manage.ts';
import { newDaemonPod, podsByNode } from './pods.ts';
import { cleanupHistory, constructHistory, daemonSetRef } from './revisions.ts';
import { rollingUpdatePlan } from './rolling-update.ts';
import { daemonSetStatus } from './status.ts';

const DS_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:daemon-set-controller',
  groups: ['system:serviceaccounts'],
};
const SETS = 'apps/daemonsets';
const COMPONENT = 'daemonset-controller';
const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * kube-controller-manager's DaemonSet controller (apps/v1): one pod per eligible node (kube-compat's
 * placement: nodeSelector, required node affinity, taints and the daemon tolerations), each pinned
 * to its node by a required node affinity on `metadata.name` for the scheduler to bind; RollingUpdate
 * (maxUnavailable, maxSurge) and OnDelete, ControllerRevisions and status.
 */
export class DaemonSetController extends BuiltinController {
  private readonly queue = new KeyQueue((key) => this.sync(key));
  private readonly unsubscribe: Array<() => void> = [];
  private readonly history: RevisionHistory;
  private readonly types: { ds: ResourceType; pod: ResourceType; event: ResourceType };

  constructor(deps: ControllerDeps) {
    super(deps);
    this.history = new RevisionHistory(deps.store, deps.objects, DS_USER);
    this.types = {
      ds: deps.registry.byResource('apps', 'daemonsets')!,
      pod: deps.registry.byResource('', 'pods')!,
      event: deps.registry.byResource('', 'events')!,
    };
    this.unsubscribe.push(
      deps.store.subscribe(SETS, {
        onChange: (e) => this.queue.add(`${e.namespace}/${e.obj.metadata?.name}`),
      }),
      deps.store.subscribe('/pods', { onChange: (e) => this.onPod(e) }),
      deps.store.subscribe('/nodes', { onChange: (e) => this.onNode(e) }),
    );
    this.enqueueAll();
  }

  /** Stops the controller. */
  stop(): void {
    this.queue.stop();
    for (const u of this.unsubscribe) u();
  }

  /** Resolves once no DaemonSet waits for a sync (for tests). */
  drained(): Promise<void> {
    return this.queue.drained();
  }

  private enqueueAll(): void {
    for (const { obj } of this.store.list(SETS))
      this.queue.add(`${obj.metadata?.namespace}/${obj.metadata?.name}`);
  }

  private onNode(e: ChangeEvent): void {
    if (e.type === 'MODIFIED' && e.prev && nodeUpdateIgnorable(e.prev, e.obj)) return;
    this.enqueueAll();
  }

  private onPod(e: ChangeEvent): void {
    for (const pod of [e.obj, e.prev]) {
      const ref = pod && controllerOf(pod);
      if (ref?.kind === 'DaemonSet' && ref.apiVersion === 'apps/v1')
        this.queue.add(`${e.namespace}/${ref.name}`);
    }
  }

  private event(
    ds: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<unknown> {
    return this.objects
      .create(
        this.types.event,
        ds.metadata?.namespace,
        controllerEvent(ds, COMPONENT, type, reason, message),
        {
          user: DS_USER,
        },
      )
      .catch(() => undefined);
  }

  private ownedPods(ds: KubeObject): KubeObject[] {
    return this.store
      .list('/pods', ds.metadata?.namespace)
      .map((e) => e.obj)
      .filter((p) => controllerOf(p)?.uid === ds.metadata?.uid);
  }

  private async sync(key: string): Promise<number | undefined> {
    const slash = key.indexOf('/');
    const ds = this.store.get(SETS, key.slice(0, slash), key.slice(slash + 1))?.obj;
    if (!ds) return undefined;
    const nodes = this.store.list('/nodes').map((e) => e.obj);
    const revisions = await constructHistory(this.history, ds);
    const claimed = await claimPods(this.store, this.objects, DS_USER, ds, daemonSetRef(ds));
    if (!ds.metadata?.deletionTimestamp) {
      await this.syncNodes(ds, managePlan(nodes, podsByNode(claimed), ds, revisions.hash), revisions.hash);
      if ((ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate')
        await this.syncNodes(
          ds,
          rollingUpdatePlan(nodes, podsByNode(this.ownedPods(ds)), ds, revisions.hash),
          revisions.hash,
        );
    }
    const pods = this.ownedPods(ds);
    await cleanupHistory(this.history, ds, pods, revisions);
    const { status, wake } = daemonSetStatus(
      ds,
      nodes,
      podsByNode(pods),
      revisions.hash,
      revisions.collisionCount,
    );
    if (!deepEqual(status, ds.status))
      await this.objects
        .update(
          this.types.ds,
          ds.metadata?.namespace,
          ds.metadata?.name,
          {
            patch: (cur) =>
              cur.metadata?.uid === ds.metadata?.uid ? { ...cur, status: { ...cur.status, ...status } } : cur,
          },
          { user: DS_USER, subresource: 'status' },
        )
        .catch(() => undefined);
    return wake;
  }

  /** Creates and deletes pods as planned (syncNodes), recording the pod control's events. */
  private async syncNodes(ds: KubeObject, plan: NodePlan, hash: string): Promise<void> {
    const ns = ds.metadata?.namespace;
    for (const pod of plan.delete) {
      try {
        await this.objects.delete(this.types.pod, ns, pod.metadata?.name, {
          user: DS_USER,
          preconditions: { uid: pod.metadata?.uid },
        });
        await this.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata?.name}`);
      } catch (err) {
        if ((err as { code?: number }).code === 404) continue;
        await this.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${errText(err)}`);
        throw err;
      }
    }
    for (const node of plan.create) {
      try {
        const pod = await this.objects.create(this.types.pod, ns, newDaemonPod(ds, node, hash), {
          user: DS_USER,
        });
        await this.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
      } catch (err) {
        await this.event(ds, 'Warning', 'FailedCreate', `Error creating: ${errText(err)}`);
        throw err;
      }
    }
  }
}
