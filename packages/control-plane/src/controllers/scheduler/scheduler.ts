import { bindPod, isConflict, setPodScheduled } from '../../api/pod-binding.ts';
import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { SELECTED_NODE } from '../storage/local-path.ts';
import { failedSchedulingEvent } from './events.ts';
import { DEFAULT_FILTERS, type Filter, type FilterFailure, type PodFacts } from './filters.ts';
import { fitErrorMessage, NO_NODES_MESSAGE } from './fit-error.ts';
import { NodeInfo, occupiesNode, podHostPorts, podRequests } from './node-info.ts';
import { pickNode } from './scoring.ts';
import { podClaims } from './volumes.ts';

const SCHEDULER_USER: UserInfo = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };
/** The schedulerName this scheduler serves. */
export const DEFAULT_SCHEDULER = 'default-scheduler';
/** Pods scheduled per turn before the event loop gets a chance to serve requests. */
const BATCH = 200;
/** Unschedulable pods are tried again at least this often, as kube-scheduler flushes its unschedulable queue. */
const RETRY_MS = 60_000;

const keyOf = (ns: string, name: string) => `${ns}/${name}`;

/** Whether the scheduler should place this pod now. */
function wantsScheduling(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return (
    !pod.spec?.nodeName &&
    (pod.spec?.schedulerName ?? DEFAULT_SCHEDULER) === DEFAULT_SCHEDULER &&
    !pod.metadata?.deletionTimestamp &&
    phase !== 'Succeeded' &&
    phase !== 'Failed'
  );
}

/** What of a node matters to scheduling (heartbeats do not). */
function nodeProjection(node: KubeObject | undefined): unknown {
  if (!node) return undefined;
  const ready = (node.status?.conditions ?? []).find((c: any) => c?.type === 'Ready')?.status;
  return [node.metadata?.labels, node.spec, node.status?.allocatable, ready];
}

/**
 * kube-scheduler's part (default profile, simplified): binds pending pods of `default-scheduler`
 * to a feasible node with the best score, or marks them PodScheduled=False/Unschedulable with
 * kube-scheduler's message and tries again when nodes or pods change.
 */
export class Scheduler extends BuiltinController {
  private readonly active = new Set<string>();
  private readonly unschedulable = new Set<string>();
  private readonly filters: Filter[];
  private readonly podType: ResourceType;
  private running = false;
  private again = false;
  private stopped = false;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly retry: NodeJS.Timeout;
  private idle: Array<() => void> = [];

  constructor(deps: ControllerDeps, filters: Filter[] = DEFAULT_FILTERS) {
    super(deps);
    this.filters = filters;
    this.podType = deps.registry.byResource('', 'pods')!;
    this.unsubscribe.push(
      deps.store.subscribe('/pods', { onChange: (e) => this.onPod(e) }),
      deps.store.subscribe('/nodes', { onChange: (e) => this.onNode(e) }),
      // Claims bound or volumes provisioned may let waiting pods in.
      deps.store.subscribe('/persistentvolumeclaims', { onChange: () => this.flush() }),
      deps.store.subscribe('/persistentvolumes', { onChange: () => this.flush() }),
    );
    for (const { obj } of deps.store.list('/pods'))
      if (wantsScheduling(obj)) this.active.add(keyOf(obj.metadata?.namespace, obj.metadata?.name));
    this.retry = setInterval(() => this.flush(), RETRY_MS);
    this.retry.unref();
    this.kick();
  }

  /** Stops scheduling. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.retry);
    for (const u of this.unsubscribe) u();
  }

  /** Resolves once no pod waits in the active queue (for tests and benches). */
  drained(): Promise<void> {
    if (!this.running && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private onPod(e: ChangeEvent): void {
    const key = keyOf(e.namespace, e.obj.metadata?.name);
    const freed = e.prev && occupiesNode(e.prev) && (e.type === 'DELETED' || !occupiesNode(e.obj));
    if (e.type === 'DELETED' || !wantsScheduling(e.obj)) {
      this.active.delete(key);
      this.unschedulable.delete(key);
    } else if (
      !this.unschedulable.has(key) ||
      !e.prev ||
      !deepEqual(e.prev.spec, e.obj.spec) ||
      !deepEqual(e.prev.metadata?.labels, e.obj.metadata?.labels)
    ) {
      this.unschedulable.delete(key);
      this.active.add(key);
      this.kick();
    }
    if (freed) this.flush();
  }

  private onNode(e: ChangeEvent): void {
    if (e.type === 'DELETED' || !deepEqual(nodeProjection(e.prev), nodeProjection(e.obj))) this.flush();
  }

  /** Moves every unschedulable pod back to the active queue. */
  private flush(): void {
    if (this.unschedulable.size === 0) return;
    for (const key of this.unschedulable) this.active.add(key);
    this.unschedulable.clear();
    this.kick();
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    setImmediate(() => {
      this.run()
        .catch(() => undefined)
        .finally(() => {
          this.running = false;
          if ((this.again || this.active.size > 0) && !this.stopped) {
            this.again = false;
            this.kick();
          } else {
            for (const resolve of this.idle.splice(0)) resolve();
          }
        });
    });
  }

  /** The nodes and what their pods use. */
  private snapshot(): Map<string, NodeInfo> {
    const nodes = new Map<string, NodeInfo>();
    for (const { obj } of this.store.list('/nodes')) nodes.set(obj.metadata?.name, new NodeInfo(obj));
    for (const { obj } of this.store.list('/pods')) {
      if (occupiesNode(obj)) nodes.get(obj.spec.nodeName)?.add(obj);
    }
    return nodes;
  }

  /** One turn: the queue's first pods by priority, then age. */
  private async run(): Promise<void> {
    if (this.active.size === 0) return;
    const pods: KubeObject[] = [];
    for (const key of this.active) {
      const slash = key.indexOf('/');
      const pod = this.store.get('/pods', key.slice(0, slash), key.slice(slash + 1))?.obj;
      if (pod && wantsScheduling(pod)) pods.push(pod);
      else this.active.delete(key);
    }
    pods.sort(
      (a, b) =>
        (b.spec?.priority ?? 0) - (a.spec?.priority ?? 0) ||
        String(a.metadata?.creationTimestamp).localeCompare(String(b.metadata?.creationTimestamp)),
    );
    const nodes = this.snapshot();
    for (const pod of pods.slice(0, BATCH)) {
      if (this.stopped) return;
      const key = keyOf(pod.metadata?.namespace, pod.metadata?.name);
      this.active.delete(key);
      await this.scheduleOne(key, pod, nodes);
    }
  }

  private async scheduleOne(key: string, pod: KubeObject, nodes: Map<string, NodeInfo>): Promise<void> {
    const ns = pod.metadata?.namespace;
    const name = pod.metadata?.name;
    if ((pod.spec?.schedulingGates ?? []).length > 0) {
      this.unschedulable.add(key);
      await this.markPending(
        ns,
        name,
        'SchedulingGated',
        'Scheduling is blocked due to non-empty scheduling gates',
      );
      return;
    }
    const { claims, message: preFilter } = podClaims(this.store, pod);
    if (preFilter) {
      this.unschedulable.add(key);
      const failures = [...nodes.values()].map(() => ({ reasons: [], resolvable: false }));
      await this.markPending(
        ns,
        name,
        'Unschedulable',
        nodes.size === 0 ? NO_NODES_MESSAGE : fitErrorMessage(pod, failures, preFilter),
      );
      return;
    }
    const { requests, nonZero } = podRequests(pod);
    const facts: PodFacts = {
      pod,
      tolerations: pod.spec?.tolerations ?? [],
      requests,
      hostPorts: podHostPorts(pod),
      claims,
    };
    const feasible: NodeInfo[] = [];
    const failures: FilterFailure[] = [];
    for (const info of nodes.values()) {
      let failure: FilterFailure | undefined;
      for (const filter of this.filters) {
        failure = filter(facts, info);
        if (failure) break;
      }
      if (failure) failures.push(failure);
      else feasible.push(info);
    }
    if (feasible.length === 0) {
      this.unschedulable.add(key);
      const message = nodes.size === 0 ? NO_NODES_MESSAGE : fitErrorMessage(pod, failures);
      await this.markPending(ns, name, 'Unschedulable', message);
      return;
    }
    const target = pickNode(facts, nonZero, feasible);
    try {
      for (const c of claims) if (c.waitsForNode) await this.selectNode(c.claim, target.name);
      await bindPod(
        this.store,
        this.objects,
        this.podType,
        ns,
        name,
        { metadata: { name, uid: pod.metadata?.uid }, target: { kind: 'Node', name: target.name } },
        { user: SCHEDULER_USER },
      );
      target.add({ ...pod, spec: { ...pod.spec, nodeName: target.name } });
    } catch (err) {
      // Bound or deleted meanwhile: nothing to do. A refusal (webhook): tried again later.
      if (!isConflict(err)) this.unschedulable.add(key);
    }
  }

  /** VolumeBinding's PreBind for a WaitForFirstConsumer claim: names the chosen node on it. */
  private async selectNode(claim: KubeObject, node: string): Promise<void> {
    const type = this.registry.byResource('', 'persistentvolumeclaims')!;
    await this.objects.update(
      type,
      claim.metadata?.namespace,
      claim.metadata?.name,
      {
        patch: (cur) => {
          if (cur.spec?.volumeName) return cur;
          cur.metadata = {
            ...cur.metadata,
            annotations: { ...cur.metadata?.annotations, [SELECTED_NODE]: node },
          };
          return cur;
        },
      },
      { user: SCHEDULER_USER },
    );
  }

  /** Writes PodScheduled=False (only when it changes) unless the pod was bound meanwhile. */
  private async markPending(ns: string, name: string, reason: string, message: string): Promise<void> {
    let changed = false;
    let pod: KubeObject | undefined;
    try {
      pod = await this.objects.update(
        this.podType,
        ns,
        name,
        {
          patch: (cur) => {
            if (cur.spec?.nodeName) return cur;
            cur.status ??= {};
            changed = setPodScheduled(cur.status, { status: 'False', reason, message });
            return cur;
          },
        },
        { user: SCHEDULER_USER, subresource: 'status' },
      );
    } catch {
      return; // deleted meanwhile
    }
    // One Warning event per new reason, as kube-scheduler records a failed attempt.
    if (!changed || reason !== 'Unschedulable' || !pod) return;
    const events = this.registry.byResource('', 'events')!;
    await this.objects
      .create(events, ns, failedSchedulingEvent(pod, message), { user: SCHEDULER_USER })
      .catch(() => undefined);
  }
}
