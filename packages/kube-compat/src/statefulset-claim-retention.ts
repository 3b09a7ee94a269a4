/**
 * The owner references of a set's claims under `persistentVolumeClaimRetentionPolicy` (gate
 * StatefulSetAutoDeletePVC), as Kubernetes' StatefulSet keeps them: the set owns a claim when the
 * claim goes with the set (whenDeleted Delete), a scaled-down pod owns its claim when the claim goes
 * with the scale-down (whenScaled Delete), so the garbage collector removes it.
 */

/** An owner reference, as far as retention reads and writes it. */
export interface OwnerReferenceFields {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** A set, pod or claim: its name, uid and owner references. */
interface Owner {
  metadata?: { name?: string; uid?: string; ownerReferences?: OwnerReferenceFields[] };
}

/** A StatefulSet with its retention policy. */
export interface RetainingSet extends Owner {
  spec?: { persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string } };
}

type StatefulSet = RetainingSet;
type Pod = Owner;
type PersistentVolumeClaim = Owner;
type OwnerReference = OwnerReferenceFields;

/** persistentVolumeClaimRetentionPolicy with both fields set. */
export interface RetentionPolicy {
  whenDeleted: string;
  whenScaled: string;
}

/** The policy, Retain/Retain when unset. */
export function retentionPolicy(set: StatefulSet): RetentionPolicy {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted ?? 'Retain', whenScaled: p?.whenScaled ?? 'Retain' };
}

const hasOwnerRef = (claim: PersistentVolumeClaim, owner: Owner) =>
  (claim.metadata?.ownerReferences ?? []).some((r) => r.uid === owner.metadata?.uid);

/** A reference to `owner` whose uid differs: the claim names an owner of that name that is gone. */
export const hasStaleOwnerRef = (claim: PersistentVolumeClaim, owner: Owner) =>
  (claim.metadata?.ownerReferences ?? []).some(
    (r) => r.name === owner.metadata?.name && r.uid !== owner.metadata?.uid,
  );

/** Whether the claim's owner references fit the policy for this pod (scaled down or not). */
export function claimOwnerMatches(
  claim: PersistentVolumeClaim,
  set: StatefulSet,
  pod: Pod,
  podScaledDown: boolean,
): boolean {
  const { whenDeleted, whenScaled } = retentionPolicy(set);
  const bySet = hasOwnerRef(claim, set);
  const byPod = hasOwnerRef(claim, pod);
  if (whenScaled === 'Delete' && whenDeleted === 'Delete')
    return podScaledDown ? !bySet && byPod : bySet && !byPod;
  if (whenScaled === 'Delete') return !bySet && podScaledDown === byPod;
  if (whenDeleted === 'Delete') return bySet && !byPod;
  return !bySet && !byPod;
}

/**
 * The claim's owner references made to fit the policy, or undefined when they already do
 * (upstream's updateClaimOwnerRefForSetAndPod); the set's reference names `setApiVersion`.
 */
export function claimOwnersForPolicy(
  claim: PersistentVolumeClaim,
  set: StatefulSet,
  pod: Pod,
  podScaledDown: boolean,
  setApiVersion: string,
): OwnerReference[] | undefined {
  if (claimOwnerMatches(claim, set, pod, podScaledDown)) return undefined;
  const { whenDeleted, whenScaled } = retentionPolicy(set);
  const setRef: OwnerReference = {
    apiVersion: setApiVersion,
    kind: 'StatefulSet',
    name: set.metadata?.name ?? '',
    uid: set.metadata?.uid ?? '',
  };
  const podRef: OwnerReference = {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
  };
  let wantSet = false;
  let wantPod = false;
  if (whenScaled === 'Delete' && whenDeleted === 'Delete') {
    wantSet = !podScaledDown;
    wantPod = podScaledDown;
  } else if (whenScaled === 'Delete') wantPod = podScaledDown;
  else if (whenDeleted === 'Delete') wantSet = true;
  let refs = [...(claim.metadata?.ownerReferences ?? [])];
  const toggle = (ref: OwnerReference, want: boolean) => {
    const has = refs.some((r) => r.uid === ref.uid);
    if (want && !has) refs = [...refs, ref];
    if (!want && has) refs = refs.filter((r) => r.uid !== ref.uid);
  };
  toggle(setRef, wantSet);
  toggle(podRef, wantPod);
  return refs;
}
