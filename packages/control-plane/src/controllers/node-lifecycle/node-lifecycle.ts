import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { readyStatus } from '../scheduler/taints.ts';
import { lastHeartbeat, lifecycleTaints, unknownConditions } from './heartbeat.ts';

const LIFECYCLE_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:node-controller',
  groups: ['system:serviceaccounts'],
};
const POD_GC_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:pod-garbage-collector',
  groups: ['system:serviceaccounts'],
};

/** How quickly a silent node is noticed. */
export interface NodeLifecycleOptions {
  /** A node whose heartbeat is older than this goes Ready=Unknown (kube-controller-manager's 40 s). */
  nodeMonitorGracePeriodMs?: number;
  /** How often heartbeats are checked (kube-controller-manager's 5 s). */
  nodeMonitorPeriodMs?: number;
}

/**
 * kube-controller-manager's node lifecycle controller and pod GC, in part: marks a node whose
 * heartbeat (Lease in kube-node-lease, or the Ready condition's lastHeartbeatTime) stopped for
 * the grace period Ready=Unknown, keeps the not-ready/unreachable NoSchedule and NoExecute
 * taints in step with Ready, and deletes the pods of a deleted node.
 */
export class NodeLifecycleController extends BuiltinController {
  private readonly grace: number;
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly nodeType: ResourceType;

  constructor(deps: ControllerDeps, options: NodeLifecycleOptions = {}) {
    super(deps);
    this.grace = options.nodeMonitorGracePeriodMs ?? 40_000;
    this.nodeType = deps.registry.byResource('', 'nodes')!;
    this.unsubscribe = deps.store.subscribe('/nodes', {
      onChange: (e) => {
        if (e.type === 'DELETED') void this.collectPods(e.obj.metadata?.name);
        else void this.syncTaints(e.obj);
      },
    });
    this.timer = setInterval(() => void this.monitor(), options.nodeMonitorPeriodMs ?? 5_000);
    this.timer.unref();
    for (const { obj } of deps.store.list('/nodes')) void this.syncTaints(obj);
  }

  /** Stops monitoring. */
  stop(): void {
    clearInterval(this.timer);
    this.unsubscribe();
  }

  /** Marks silent nodes Ready=Unknown (the taints follow from the change). */
  private async monitor(): Promise<void> {
    const now = Date.now();
    for (const { obj: node } of this.store.list('/nodes')) {
      if (readyStatus(node) === 'Unknown' || now - lastHeartbeat(this.store, node) <= this.grace) continue;
      await this.write(node, 'status', (cur) => {
        // Re-checked on the latest object: a heartbeat may have arrived meanwhile.
        if (Date.now() - lastHeartbeat(this.store, cur) <= this.grace) return cur;
        return { ...cur, status: { ...cur.status, conditions: unknownConditions(cur) } };
      });
    }
  }

  private async syncTaints(node: KubeObject): Promise<void> {
    if (deepEqual(lifecycleTaints(node, readyStatus(node)), node.spec?.taints ?? [])) return;
    await this.write(node, '', (cur) => {
      const taints = lifecycleTaints(cur, readyStatus(cur));
      if (deepEqual(taints, cur.spec?.taints ?? [])) return cur;
      const spec = { ...cur.spec, taints };
      if (!taints.length) delete spec.taints;
      return { ...cur, spec };
    });
  }

  private async write(
    node: KubeObject,
    subresource: string,
    patch: (cur: KubeObject) => KubeObject,
  ): Promise<void> {
    try {
      await this.objects.update(
        this.nodeType,
        '',
        node.metadata?.name,
        { patch },
        { user: LIFECYCLE_USER, subresource },
      );
    } catch {
      // deleted or changed meanwhile: the next event or period brings it back
    }
  }

  /** PodGC: the pods bound to a node that is gone are deleted at once. */
  private async collectPods(nodeName: string): Promise<void> {
    const podType = this.registry.byResource('', 'pods')!;
    for (const { obj: pod } of this.store.list('/pods')) {
      if (pod.spec?.nodeName !== nodeName) continue;
      try {
        await this.objects.delete(podType, pod.metadata?.namespace, pod.metadata?.name, {
          user: POD_GC_USER,
          gracePeriodSeconds: 0,
        });
      } catch {
        // already gone
      }
    }
  }
}
