import { labelSelectorMatches } from '@kruise/kube-compat/label-selector';
import type { UserInfo } from '../../auth/attributes.ts';
import { ApiError } from '../../errors.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { EventRecorder } from '../controller-events.ts';
import { claimObjects, controllerOf, controllerRefTo } from '../controller-ref.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { KeyQueue, type SyncResult } from '../work-queue.ts';
import { PodExpectations } from './expectations.ts';
import { podsToDelete } from './pod-ranking.ts';
import { isPodActive } from './pod-state.ts';
import { slowStartBatch } from './slow-start.ts';
import { type ManageFailure, nextAvailableIn, replicaSetStatus } from './status.ts';

const RS_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:replicaset-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
};
/** Pods created or deleted per sync at most (kube-controller-manager's BurstReplicas). */
export const BURST_REPLICAS = 500;
const RS_RESOURCE = 'apps/replicasets';
const POD_RESOURCE = '/pods';
const WRITE = { user: RS_USER, fieldManager: 'kube-controller-manager' };

const keyOf = (obj: KubeObject) => `${obj.metadata?.namespace}/${obj.metadata?.name}`;

/** The pod a ReplicaSet creates from its template (kube-controller-manager's GetPodFromTemplate). */
function podFromTemplate(rs: KubeObject): KubeObject {
  const template = rs.spec?.template ?? {};
  const meta = template.metadata ?? {};
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata?.name}-`,
      namespace: rs.metadata?.namespace,
      labels: structuredClone(meta.labels ?? {}),
      ownerReferences: [controllerRefTo(rs)],
    },
    spec: structuredClone(template.spec ?? {}),
  };
  if (meta.annotations) pod.metadata!.annotations = structuredClone(meta.annotations);
  if (meta.finalizers) pod.metadata!.finalizers = [...meta.finalizers];
  return pod;
}

/** Whether a write failed only because the namespace is being deleted (the controller ignores that). */
function namespaceTerminating(err: unknown): boolean {
  return err instanceof ApiError && err.code === 403 && /because it is being terminated/.test(err.message);
}

/**
 * kube-controller-manager's ReplicaSet controller: keeps `spec.replicas` pods of the template
 * (created in slow-start batches, deleted in ActivePodsWithRanks order), adopts orphans its
 * selector matches and releases pods it no longer selects, and reports replicas,
 * fullyLabeledReplicas, readyReplicas, availableReplicas, observedGeneration and ReplicaFailure.
 */
export class ReplicaSetController extends BuiltinController {
  private readonly queue = new KeyQueue((key) => this.sync(key));
  private readonly expectations = new PodExpectations();
  private readonly events: EventRecorder;
  private readonly rsType: ResourceType;
  private readonly podType: ResourceType;
  private readonly unsubscribe: Array<() => void>;

  constructor(deps: ControllerDeps) {
    super(deps);
    this.rsType = deps.registry.byResource('apps', 'replicasets')!;
    this.podType = deps.registry.byResource('', 'pods')!;
    this.events = new EventRecorder(
      deps.objects,
      deps.registry.byResource('', 'events')!,
      'replicaset-controller',
      RS_USER,
    );
    this.unsubscribe = [
      deps.store.subscribe(RS_RESOURCE, { onChange: (e) => this.onReplicaSet(e) }),
      deps.store.subscribe(POD_RESOURCE, { onChange: (e) => this.onPod(e) }),
    ];
    for (const { obj } of deps.store.list(RS_RESOURCE)) this.queue.add(keyOf(obj));
  }

  /** Stops syncing. */
  stop(): void {
    for (const u of this.unsubscribe) u();
    this.queue.stop();
  }

  private onReplicaSet(e: ChangeEvent): void {
    if (e.type === 'DELETED') {
      this.expectations.delete(keyOf(e.obj));
      this.events.forget(e.obj.metadata?.uid);
      return;
    }
    this.queue.add(keyOf(e.obj));
  }

  /** The ReplicaSet key a controller ref points at, when it names a ReplicaSet that exists with that uid. */
  private ownerKey(pod: KubeObject): string | undefined {
    const ref = controllerOf(pod);
    if (ref?.kind !== 'ReplicaSet') return undefined;
    const ns = pod.metadata?.namespace;
    const rs = this.store.get(RS_RESOURCE, ns, String(ref.name));
    return rs?.obj.metadata?.uid === ref.uid ? `${ns}/${ref.name}` : undefined;
  }

  /** Every ReplicaSet whose selector matches an orphan pod. */
  private enqueueSelecting(pod: KubeObject): void {
    if (!pod.metadata?.labels) return;
    for (const { obj } of this.store.list(RS_RESOURCE, pod.metadata?.namespace))
      if (labelSelectorMatches(obj.spec?.selector, pod.metadata.labels)) this.queue.add(keyOf(obj));
  }

  private onPod(e: ChangeEvent): void {
    const pod = e.obj;
    const podKey = keyOf(pod);
    const owner = this.ownerKey(pod);
    if (e.type === 'ADDED') {
      if (owner) {
        this.expectations.creationObserved(owner);
        this.queue.add(owner);
      } else if (!controllerOf(pod)) this.enqueueSelecting(pod);
      return;
    }
    if (e.type === 'DELETED') {
      if (owner) {
        this.expectations.deletionObserved(owner, podKey);
        this.queue.add(owner);
      }
      return;
    }
    const prev = e.prev;
    if (owner && pod.metadata?.deletionTimestamp && !prev?.metadata?.deletionTimestamp)
      this.expectations.deletionObserved(owner, podKey);
    const prevOwner = prev ? this.ownerKey(prev) : undefined;
    if (prevOwner && prevOwner !== owner) this.queue.add(prevOwner);
    if (owner) this.queue.add(owner);
    else if (!controllerOf(pod)) this.enqueueSelecting(pod);
  }

  private async sync(key: string): Promise<SyncResult> {
    const [ns, name] = key.split('/') as [string, string];
    const rs = this.store.get(RS_RESOURCE, ns, name)?.obj;
    if (!rs) {
      this.expectations.delete(key);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const all = this.store.list(POD_RESOURCE, ns).map((e) => e.obj);
    const claimed = await claimObjects(this.objects, this.podType, rs, all, RS_USER);
    const pods = claimed.filter(isPodActive);
    let failure: ManageFailure | undefined;
    if (needsSync && !rs.metadata?.deletionTimestamp) failure = await this.manageReplicas(key, rs, pods);
    const current = this.store.get(RS_RESOURCE, ns, name)?.obj;
    if (!current || current.metadata?.uid !== rs.metadata?.uid) return;
    const fresh = this.store
      .list(POD_RESOURCE, ns)
      .map((e) => e.obj)
      .filter((p) => controllerOf(p)?.uid === rs.metadata?.uid && isPodActive(p));
    const visible = fresh.filter((p) => labelSelectorMatches(current.spec?.selector, p.metadata?.labels));
    await this.writeStatus(current, replicaSetStatus(current, visible, failure));
    if (failure) throw new Error(failure.message);
    return nextAvailableIn(current, visible);
  }

  private async writeStatus(rs: KubeObject, status: Record<string, unknown>): Promise<void> {
    const same = JSON.stringify(rs.status ?? {}) === JSON.stringify(status);
    if (same) return;
    await this.objects.update(
      this.rsType,
      rs.metadata?.namespace,
      rs.metadata?.name,
      {
        patch: (cur) => {
          if (cur.metadata?.uid !== rs.metadata?.uid) throw new Error('replica set replaced');
          return { ...cur, status };
        },
      },
      { ...WRITE, subresource: 'status' },
    );
  }

  /** Creates or deletes pods toward spec.replicas; resolves with what failed, if anything. */
  private async manageReplicas(
    key: string,
    rs: KubeObject,
    pods: KubeObject[],
  ): Promise<ManageFailure | undefined> {
    const diff = pods.length - Number(rs.spec?.replicas ?? 1);
    if (diff < 0) {
      const count = Math.min(-diff, BURST_REPLICAS);
      this.expectations.expectCreations(key, count);
      const { attempted, error } = await slowStartBatch(count, () => this.createPod(key, rs));
      // Creations never attempted will not be observed.
      for (let i = attempted; i < count; i++) this.expectations.creationObserved(key);
      return error ? { reason: 'FailedCreate', message: error.message } : undefined;
    }
    if (diff > 0) {
      const count = Math.min(diff, BURST_REPLICAS);
      const victims = podsToDelete(pods, this.relatedPods(rs), count);
      this.expectations.expectDeletions(key, victims.map(keyOf));
      const errors = await Promise.all(victims.map((pod) => this.deletePod(key, rs, pod)));
      const error = errors.find((e) => e !== undefined);
      return error ? { reason: 'FailedDelete', message: error.message } : undefined;
    }
    return undefined;
  }

  /** The active pods of every ReplicaSet with the same controller as `rs` (just its own without one). */
  private relatedPods(rs: KubeObject): KubeObject[] {
    const ns = rs.metadata?.namespace;
    const owner = controllerOf(rs)?.uid;
    const uids = new Set<string>([rs.metadata?.uid]);
    if (owner)
      for (const { obj } of this.store.list(RS_RESOURCE, ns))
        if (controllerOf(obj)?.uid === owner) uids.add(obj.metadata?.uid);
    return this.store
      .list(POD_RESOURCE, ns)
      .map((e) => e.obj)
      .filter((p) => isPodActive(p) && uids.has(String(controllerOf(p)?.uid)));
  }

  private async createPod(key: string, rs: KubeObject): Promise<void> {
    try {
      const pod = await this.objects.create(this.podType, rs.metadata?.namespace, podFromTemplate(rs), WRITE);
      this.events.record(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
    } catch (err) {
      this.expectations.creationObserved(key);
      if (namespaceTerminating(err)) return;
      this.events.record(rs, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
      throw err;
    }
  }

  private async deletePod(key: string, rs: KubeObject, pod: KubeObject): Promise<Error | undefined> {
    try {
      await this.objects.delete(this.podType, pod.metadata?.namespace, pod.metadata?.name, {
        ...WRITE,
        preconditions: { uid: pod.metadata?.uid },
      });
      this.events.record(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata?.name}`);
      return undefined;
    } catch (err) {
      this.expectations.deletionObserved(key, keyOf(pod));
      if (err instanceof ApiError && err.code === 404) return undefined;
      this.events.record(rs, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
      return err as Error;
    }
  }
}
