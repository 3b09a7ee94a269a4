import { jsonDeepEqual } from '@kruise/kube-compat/json-equal';
import type { ObjectService } from '../../api/objects.ts';
import type { UserInfo } from '../../auth/attributes.ts';
import { ApiError } from '../../errors.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { EventRecorder } from '../controller-events.ts';
import { controllerRefTo } from '../controller-ref.ts';
import {
  maxRevision,
  REVISION,
  revisionOf,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './annotations.ts';
import {
  conditionOf,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  hasProgressDeadline,
  newCondition,
  Reasons,
  removeCondition,
  setCondition,
} from './conditions.ts';
import { POD_TEMPLATE_HASH, podTemplateHash, templatesEqualIgnoringHash } from './pod-template-hash.ts';
import { byCreation, maxSurge, newReplicaSetSize, specReplicas } from './replicas.ts';
import { deploymentStatus, replicaFailure } from './status.ts';

/** What a run writes with. */
export interface RunDeps {
  objects: ObjectService;
  deploymentType: ResourceType;
  rsType: ResourceType;
  events: EventRecorder;
  user: UserInfo;
}

/** The new ReplicaSet (when there is one) and the others. */
export interface ReplicaSets {
  newRS: KubeObject | undefined;
  oldRSs: KubeObject[];
}

/**
 * One sync of one Deployment: its working copy and ReplicaSets, and kube-controller-manager's
 * primitives on them (find or create the new ReplicaSet and sync revisions, scale a ReplicaSet
 * with its event, the rollout and plain status syncs, history cleanup). `requeueAfter` is set
 * when the Deployment must be looked at again (a progress deadline to check).
 */
export class DeploymentRun {
  requeueAfter: number | undefined;
  /** The Deployment as last read or written (a working copy). */
  d: KubeObject;
  /** Its ReplicaSets, as last read or written. */
  rsList: KubeObject[];
  private readonly deps: RunDeps;
  private readonly write;

  constructor(deps: RunDeps, d: KubeObject, rsList: KubeObject[]) {
    this.deps = deps;
    this.d = d;
    this.rsList = rsList;
    this.write = { user: deps.user, fieldManager: 'kube-controller-manager' };
  }

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked and missing) and the old ones. */
  async replicaSets(createIfMissing: boolean): Promise<ReplicaSets> {
    const sorted = [...this.rsList].sort(byCreation);
    const existing = sorted.find((rs) =>
      templatesEqualIgnoringHash(rs.spec?.template, this.d.spec?.template),
    );
    const oldRSs = sorted.filter((rs) => rs !== existing);
    const newRS = await this.newReplicaSet(existing, oldRSs, createIfMissing);
    return { newRS, oldRSs };
  }

  private async newReplicaSet(
    existing: KubeObject | undefined,
    oldRSs: KubeObject[],
    createIfMissing: boolean,
  ): Promise<KubeObject | undefined> {
    const d = this.d;
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing) {
      const copy = structuredClone(existing) as KubeObject & { metadata: Record<string, any> };
      const annotated = setNewReplicaSetAnnotations(
        d,
        copy,
        newRevision,
        true,
        specReplicas(d) + maxSurge(d),
      );
      const minReady = Number(d.spec?.minReadySeconds ?? 0);
      let rs = existing;
      if (annotated || Number(copy.spec?.minReadySeconds ?? 0) !== minReady) {
        rs = await this.deps.objects.update(
          this.deps.rsType,
          copy.metadata.namespace,
          copy.metadata.name,
          {
            patch: (cur) => {
              if (cur.metadata?.uid !== copy.metadata?.uid) throw new Error('replica set replaced');
              return {
                ...cur,
                metadata: { ...cur.metadata, annotations: copy.metadata.annotations },
                spec: { ...cur.spec, minReadySeconds: minReady },
              };
            },
          },
          this.write,
        );
        this.replace(rs);
      }
      let needsUpdate = this.setRevision(rs.metadata?.annotations?.[REVISION]);
      if (hasProgressDeadline(d) && !conditionOf(d.status, 'Progressing')) {
        const msg = `Found new replica set "${rs.metadata?.name}"`;
        d.status ??= {};
        setCondition(d.status, newCondition('Progressing', 'True', Reasons.FoundNewReplicaSet, msg));
        needsUpdate = true;
      }
      if (needsUpdate) await this.updateStatus(d.status);
      return rs;
    }
    if (!createIfMissing) return undefined;
    return this.createNewReplicaSet(oldRSs, newRevision);
  }

  private async createNewReplicaSet(
    oldRSs: KubeObject[],
    newRevision: number,
  ): Promise<KubeObject | undefined> {
    const d = this.d;
    const template = structuredClone(d.spec?.template ?? {});
    const hash = podTemplateHash(template, d.status?.collisionCount);
    template.metadata ??= {};
    template.metadata.labels = { ...template.metadata.labels, [POD_TEMPLATE_HASH]: hash };
    const selector = structuredClone(d.spec?.selector ?? {});
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH]: hash };
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata?.name}-${hash}`,
        namespace: d.metadata?.namespace,
        ownerReferences: [controllerRefTo(d)],
        labels: { ...template.metadata.labels },
      },
      spec: { replicas: 0, minReadySeconds: Number(d.spec?.minReadySeconds ?? 0), selector, template },
    };
    const size = newReplicaSetSize(d, [...oldRSs, rs], rs);
    rs.spec.replicas = size;
    setNewReplicaSetAnnotations(d, rs, newRevision, false, specReplicas(d) + maxSurge(d));
    let created: KubeObject;
    let alreadyExisted = false;
    try {
      created = await this.deps.objects.create(this.deps.rsType, d.metadata?.namespace, rs, this.write);
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'AlreadyExists') {
        const found = this.stored(rs.metadata!.name);
        const ref = (found?.metadata?.ownerReferences ?? []).find((r: any) => r?.controller);
        if (
          found &&
          ref?.uid === d.metadata?.uid &&
          templatesEqualIgnoringHash(d.spec?.template, found.spec?.template)
        ) {
          created = found;
          alreadyExisted = true;
        } else {
          // A hash collision: the next hash takes collisionCount into account.
          d.status ??= {};
          d.status.collisionCount = Number(d.status.collisionCount ?? 0) + 1;
          await this.updateStatus(d.status);
          throw err;
        }
      } else {
        const msg = `Failed to create new replica set "${rs.metadata!.name}": ${(err as Error).message}`;
        if (hasProgressDeadline(d)) {
          d.status ??= {};
          setCondition(d.status, newCondition('Progressing', 'False', Reasons.ReplicaSetCreateError, msg));
          await this.updateStatus(d.status);
        }
        this.deps.events.record(d, 'Warning', 'FailedCreate', msg);
        throw err;
      }
    }
    this.rsList.push(created);
    if (!alreadyExisted && size > 0)
      this.deps.events.record(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata?.name} from 0 to ${size}`,
      );
    let needsUpdate = this.setRevision(String(newRevision));
    if (!alreadyExisted && hasProgressDeadline(d)) {
      d.status ??= {};
      const msg = `Created new replica set "${created.metadata?.name}"`;
      setCondition(d.status, newCondition('Progressing', 'True', Reasons.NewReplicaSetCreated, msg));
      needsUpdate = true;
    }
    if (needsUpdate) await this.updateStatus(d.status);
    return created;
  }

  private stored(name: string): KubeObject | undefined {
    try {
      return this.deps.objects.getEntry(this.deps.rsType, this.d.metadata?.namespace, name).obj;
    } catch {
      return undefined;
    }
  }

  /** SetDeploymentRevision on the working copy; whether it changed. */
  private setRevision(revision: string | undefined): boolean {
    if (revision === undefined) return false;
    this.d.metadata ??= {};
    const meta = this.d.metadata;
    meta.annotations ??= {};
    if (meta.annotations[REVISION] === revision) return false;
    meta.annotations[REVISION] = revision;
    return true;
  }

  private replace(rs: KubeObject): void {
    this.rsList = this.rsList.map((x) => (x.metadata?.uid === rs.metadata?.uid ? rs : x));
  }

  /**
   * scaleReplicaSetAndRecordEvent / scaleReplicaSet: sets the ReplicaSet's replicas and its
   * desired-replicas and max-replicas annotations; on a size change the ScalingReplicaSet event.
   * Resolves with the ReplicaSet as written and whether its size changed.
   */
  async scale(
    rs: KubeObject,
    size: number,
    operation?: 'up' | 'down',
  ): Promise<{ rs: KubeObject; scaled: boolean }> {
    const from = specReplicas(rs);
    const copy = structuredClone(rs) as KubeObject & { metadata: Record<string, any> };
    const sizeChanged = from !== size;
    const annotated = setReplicasAnnotations(
      copy,
      specReplicas(this.d),
      specReplicas(this.d) + maxSurge(this.d),
    );
    if (!sizeChanged && !annotated) return { rs, scaled: false };
    const written = await this.deps.objects.update(
      this.deps.rsType,
      rs.metadata?.namespace,
      rs.metadata?.name,
      {
        patch: (cur) => {
          if (cur.metadata?.uid !== rs.metadata?.uid) throw new Error('replica set replaced');
          return {
            ...cur,
            metadata: {
              ...cur.metadata,
              annotations: { ...cur.metadata?.annotations, ...copy.metadata.annotations },
            },
            spec: { ...cur.spec, replicas: size },
          };
        },
      },
      this.write,
    );
    this.replace(written);
    if (sizeChanged) {
      const op = operation ?? (from < size ? 'up' : 'down');
      this.deps.events.record(
        this.d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${op} replica set ${rs.metadata?.name} from ${from} to ${size}`,
      );
    }
    return { rs: written, scaled: sizeChanged };
  }

  /** Writes status (and the revision annotation, which a Deployment's status write carries). */
  async updateStatus(status: Record<string, any> | undefined): Promise<void> {
    const d = this.d;
    const revision = d.metadata?.annotations?.[REVISION];
    const written = await this.deps.objects.update(
      this.deps.deploymentType,
      d.metadata?.namespace,
      d.metadata?.name,
      {
        patch: (cur) => {
          if (cur.metadata?.uid !== d.metadata?.uid) throw new Error('deployment replaced');
          const annotations = { ...cur.metadata?.annotations };
          if (revision !== undefined) annotations[REVISION] = revision;
          return { ...cur, metadata: { ...cur.metadata, annotations }, status };
        },
      },
      { ...this.write, subresource: 'status' },
    );
    this.d = structuredClone(written);
  }

  /** syncDeploymentStatus: the computed status, written when it differs. */
  async syncStatus(all: (KubeObject | undefined)[], newRS: KubeObject | undefined): Promise<void> {
    const status = deploymentStatus(this.d, all, newRS);
    if (!jsonDeepEqual(this.d.status ?? {}, status)) await this.updateStatus(status);
  }

  /** syncRolloutStatus: the status with the Progressing and ReplicaFailure conditions brought up to date. */
  async syncRolloutStatus(all: (KubeObject | undefined)[], newRS: KubeObject | undefined): Promise<void> {
    const d = this.d;
    const status = deploymentStatus(d, all, newRS);
    if (!hasProgressDeadline(d)) removeCondition(status, 'Progressing');
    const current = conditionOf(d.status, 'Progressing');
    const complete =
      status.replicas === status.updatedReplicas && current?.reason === Reasons.NewReplicaSetAvailable;
    const name = newRS?.metadata?.name;
    if (hasProgressDeadline(d) && !complete) {
      if (deploymentComplete(d, status)) {
        const msg = newRS
          ? `ReplicaSet "${name}" has successfully progressed.`
          : 'Deployment has successfully progressed.';
        setCondition(status, newCondition('Progressing', 'True', Reasons.NewReplicaSetAvailable, msg));
      } else if (deploymentProgressing(d, status)) {
        const msg = newRS ? `ReplicaSet "${name}" is progressing.` : 'Deployment is progressing.';
        const condition = newCondition('Progressing', 'True', Reasons.ReplicaSetUpdated, msg);
        if (current?.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
        removeCondition(status, 'Progressing');
        setCondition(status, condition);
      } else if (deploymentTimedOut(d, status)) {
        const msg = newRS
          ? `ReplicaSet "${name}" has timed out progressing.`
          : `Deployment "${d.metadata?.name}" has timed out progressing.`;
        setCondition(status, newCondition('Progressing', 'False', Reasons.ProgressDeadlineExceeded, msg));
      }
    }
    const failure = replicaFailure(all, newRS);
    if (failure) setCondition(status, failure);
    else removeCondition(status, 'ReplicaFailure');
    if (jsonDeepEqual(d.status ?? {}, status)) {
      this.requeueStuck(status);
      return;
    }
    await this.updateStatus(status);
  }

  /** requeueStuckDeployment: look again when the progress deadline would pass. */
  private requeueStuck(status: Record<string, any>): void {
    const d = this.d;
    const c = conditionOf(d.status, 'Progressing');
    if (!hasProgressDeadline(d) || !c) return;
    if (deploymentComplete(d, status) || c.reason === Reasons.ProgressDeadlineExceeded) return;
    const after =
      Date.parse(c.lastUpdateTime ?? '') + Number(d.spec.progressDeadlineSeconds) * 1000 - Date.now();
    this.requeueAfter = after < 1000 ? 1000 : after + 1000;
  }

  /** cleanupDeployment: deletes the oldest old ReplicaSets with no pods beyond revisionHistoryLimit. */
  async cleanup(oldRSs: KubeObject[]): Promise<void> {
    const limit = this.d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
    const diff = cleanable.length - Number(limit);
    if (diff <= 0) return;
    cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of cleanable.slice(0, diff)) {
      if (
        Number(rs.status?.replicas ?? 0) !== 0 ||
        specReplicas(rs) !== 0 ||
        Number(rs.metadata?.generation ?? 0) > Number(rs.status?.observedGeneration ?? 0)
      )
        continue;
      try {
        await this.deps.objects.delete(this.deps.rsType, rs.metadata?.namespace, rs.metadata?.name, {
          ...this.write,
          preconditions: { uid: rs.metadata?.uid },
        });
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
  }

  /** DeploymentComplete on the stored status. */
  complete(): boolean {
    return deploymentComplete(this.d, this.d.status ?? {});
  }
}
