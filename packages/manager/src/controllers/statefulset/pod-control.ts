import type { StatefulSet } from '@kruise/api';
import {
  claimOwnerMatches,
  claimOwnersForPolicy,
  hasStaleOwnerRef,
  retentionPolicy,
} from '@kruise/kube-compat/statefulset-claim-retention';
import {
  claimsFor,
  identityMatches,
  storageMatches,
  updateIdentity,
  updateStorage,
} from '@kruise/kube-compat/statefulset-identity';
import { inRange, parentAndOrdinal } from '@kruise/kube-compat/statefulset-ordinals';
import {
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type KubeObject,
  Resources,
  retryOnConflict,
} from '@kruise/runtime';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import type { StatefulSetDeps } from './context.ts';
import { ordinalRange } from './ordinal-range.ts';
import { STATEFULSET_API_VERSION } from './revisions.ts';

const errText = (err: unknown) => (err as Error)?.message ?? String(err);

/**
 * What the controller does to a set's pods and claims (upstream's StatefulPodControl): creates a
 * pod after its claims, updates its identity and storage, deletes it, keeps the claims' owner
 * references to the retention policy, and records upstream's events for each.
 */
export class StatefulPodControl {
  private readonly d: StatefulSetDeps;

  constructor(deps: StatefulSetDeps) {
    this.d = deps;
  }

  private get client(): KubeClient {
    return this.d.client;
  }

  private podEvent(verb: 'create' | 'update' | 'delete', set: StatefulSet, pod: Pod, err?: unknown): void {
    const title = verb[0]!.toUpperCase() + verb.slice(1);
    const name = pod.metadata?.name;
    if (err === undefined)
      this.d.event(
        set,
        'Normal',
        `Successful${title}`,
        `${verb} Pod ${name} in StatefulSet ${set.metadata?.name} successful`,
      );
    else
      this.d.event(
        set,
        'Warning',
        `Failed${title}`,
        `${verb} Pod ${name} in StatefulSet ${set.metadata?.name} failed error: ${errText(err)}`,
      );
  }

  private claimEvent(
    verb: 'create' | 'resize',
    set: StatefulSet,
    pod: Pod,
    claim: PersistentVolumeClaim,
    err?: unknown,
  ) {
    const title = verb[0]!.toUpperCase() + verb.slice(1);
    const names = `Claim ${claim.metadata?.name}`;
    if (err === undefined)
      this.d.event(
        set,
        'Normal',
        `Successful${title}`,
        `${verb} ${names} Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} success`,
      );
    else
      this.d.event(
        set,
        'Warning',
        `Failed${title}`,
        `${verb} ${names} for Pod ${pod.metadata?.name} in StatefulSet ${set.metadata?.name} failed error: ${errText(err)}`,
      );
  }

  /** Creates the pod's claims that do not exist yet; a claim being deleted is an error (upstream's createPersistentVolumeClaims). */
  async createClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
    const errors: string[] = [];
    for (const claim of claimsFor(set, ordinal).values()) {
      const existing = this.d.claim(set.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      if (existing?.metadata?.deletionTimestamp) {
        errors.push(`pvc ${claim.metadata?.name} is to be deleted`);
        continue;
      }
      if (existing) continue;
      try {
        await this.client.create(Resources.PersistentVolumeClaim, claim as unknown as KubeObject);
        this.claimEvent('create', set, pod, claim);
      } catch (err) {
        if (isAlreadyExists(err)) continue;
        errors.push(`failed to create PVC ${claim.metadata?.name}: ${errText(err)}`);
        this.claimEvent('create', set, pod, claim, err);
      }
    }
    if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  }

  /** Creates the pod after its claims, then fits the claims' owners to the retention policy (upstream's CreateStatefulPod). */
  async createPod(set: StatefulSet, pod: Pod): Promise<Pod> {
    try {
      await this.createClaims(set, pod);
    } catch (err) {
      this.podEvent('create', set, pod, err);
      throw err;
    }
    let created: Pod;
    try {
      created = (await this.client.create(Resources.Pod, pod as unknown as KubeObject)) as unknown as Pod;
    } catch (err) {
      if (!isAlreadyExists(err)) this.podEvent('create', set, pod, err);
      throw err;
    }
    if (this.d.gates.enabled('StatefulSetAutoDeletePVC')) {
      try {
        await this.fitClaimsToRetention(set, created);
      } catch (err) {
        this.podEvent('update', set, created, err);
        throw err;
      }
    }
    this.podEvent('create', set, created);
    return created;
  }

  /**
   * Puts the pod's identity and storage right (upstream's UpdateStatefulPod). A pod's volumes cannot
   * change once it exists: a claim template added to the set reaches the pods created from then on,
   * and existing pods keep running without it (reported in status) instead of failing this update
   * for ever, as upstream does (#2343).
   */
  async updatePod(set: StatefulSet, pod: Pod): Promise<void> {
    let attempted = false;
    let latest = structuredClone(pod);
    try {
      await retryOnConflict(async () => {
        let consistent = true;
        if (!identityMatches(set, latest)) {
          updateIdentity(set, latest, this.d.gates.enabled('PodIndexLabel'));
          consistent = false;
        }
        if (
          this.d.gates.enabled('StatefulSetAutoDeletePVC') &&
          !(await this.claimsMatchRetention(set, latest))
        ) {
          await this.fitClaimsToRetention(set, latest);
        }
        if (consistent) return;
        attempted = true;
        try {
          await this.client.update(Resources.Pod, latest as unknown as KubeObject);
        } catch (err) {
          const fresh = await this.client
            .get(Resources.Pod, latest.metadata?.namespace, latest.metadata?.name ?? '')
            .catch(() => undefined);
          if (fresh) latest = fresh as unknown as Pod;
          throw err;
        }
      });
    } catch (err) {
      if (attempted) this.podEvent('update', set, latest, err);
      throw err;
    }
    if (attempted) this.podEvent('update', set, latest);
  }

  /** Deletes the pod (upstream's DeleteStatefulPod), with its event. */
  async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.client.delete(Resources.Pod, pod.metadata?.namespace, pod.metadata?.name ?? '', {
        preconditions: { uid: pod.metadata?.uid },
      });
    } catch (err) {
      if (isNotFound(err)) return;
      this.podEvent('delete', set, pod, err);
      throw err;
    }
    this.podEvent('delete', set, pod);
  }

  /** Whether a pod is outside the set's replicas (a scale-down condemned it). */
  private scaledDown(set: StatefulSet, pod: Pod): boolean {
    return !inRange(parentAndOrdinal(pod.metadata?.name ?? '').ordinal, ordinalRange(set, this.d.gates));
  }

  /** Whether the owner references of every existing claim of the pod fit the retention policy. */
  async claimsMatchRetention(set: StatefulSet, pod: Pod): Promise<boolean> {
    const down = this.scaledDown(set, pod);
    const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
    for (const claim of claimsFor(set, ordinal).values()) {
      const existing = this.d.claim(set.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      if (existing && !claimOwnerMatches(existing, set, pod, down)) return false;
    }
    return true;
  }

  /** Fits the owner references of the pod's claims to the retention policy (upstream's UpdatePodClaimForRetentionPolicy). */
  async fitClaimsToRetention(set: StatefulSet, pod: Pod): Promise<void> {
    const down = this.scaledDown(set, pod);
    const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
    for (const claim of claimsFor(set, ordinal).values()) {
      const existing = this.d.claim(set.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      if (!existing) continue;
      const owners = claimOwnersForPolicy(existing, set, pod, down, STATEFULSET_API_VERSION);
      if (!owners) continue;
      try {
        await this.client.mergePatch(
          Resources.PersistentVolumeClaim,
          existing.metadata?.namespace,
          existing.metadata?.name ?? '',
          {
            metadata: { ownerReferences: owners, resourceVersion: existing.metadata?.resourceVersion },
          },
        );
      } catch (err) {
        throw new Error(
          `Could not update claim ${existing.metadata?.name} for delete policy ownerRefs: ${errText(err)}`,
        );
      }
    }
  }

  /**
   * Whether a claim of the pod still names a pod of that name that is gone (its garbage collection
   * under whenScaled Delete is pending): the pod must not be created before it is gone (upstream's PodClaimIsStale).
   */
  podClaimIsStale(set: StatefulSet, pod: Pod): boolean {
    if (retentionPolicy(set).whenScaled === 'Retain') return false;
    const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
    for (const claim of claimsFor(set, ordinal).values()) {
      const existing = this.d.claim(set.metadata?.namespace ?? '', claim.metadata?.name ?? '');
      if (existing && hasStaleOwnerRef(existing, pod)) return true;
    }
    return false;
  }

  /** Whether the pod's volumes point at its claims, for the claim templates the pod was created with. */
  storageMatches(set: StatefulSet, pod: Pod): boolean {
    return storageMatches(set, pod);
  }

  /** The pod's volumes pointed at its claims (a copy), for a pod not created yet. */
  withStorage(set: StatefulSet, pod: Pod): Pod {
    const copy = structuredClone(pod);
    updateStorage(set, copy);
    return copy;
  }
}
