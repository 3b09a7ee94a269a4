/**
 * A stateful pod's identity as Kubernetes' StatefulSet and OpenKruise's Advanced StatefulSet give it
 * (one implementation for both): its name `<set>-<ordinal>`, its pod-name and pod-index labels, and
 * its claims `<claim>-<set>-<ordinal>` from the set's volumeClaimTemplates.
 */
import { parentAndOrdinal } from './statefulset-ordinals.ts';

/** What identity reads of a claim template or a claim. */
export interface ClaimFields {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
}

/** What identity reads of a StatefulSet. */
export interface StatefulSetFields {
  metadata?: { name?: string; namespace?: string };
  spec?: {
    selector?: { matchLabels?: Record<string, string> };
    volumeClaimTemplates?: ClaimFields[];
  };
}

/** A pod volume, as far as identity reads and writes it. */
export interface VolumeFields {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
}

/** What identity reads and writes of a pod. */
export interface PodFields {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { volumes?: VolumeFields[] };
}

type StatefulSet = StatefulSetFields;
type Pod = PodFields;

/** Label with the pod's own name (Kubernetes' StatefulSetPodNameLabel). */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** Label with the pod's ordinal (Kubernetes' PodIndexLabel, gate PodIndexLabel). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

const setName = (set: StatefulSet) => set.metadata?.name ?? '';

/** The name of the set's pod of `ordinal`: `<set>-<ordinal>`. */
export const podName = (set: StatefulSet, ordinal: number) => `${setName(set)}-${ordinal}`;

/** The claim of template `claim` for the pod of `ordinal`: `<claim>-<set>-<ordinal>`. */
export const claimName = (set: StatefulSet, claim: ClaimFields, ordinal: number) =>
  `${claim.metadata?.name ?? ''}-${setName(set)}-${ordinal}`;

/** Whether the pod's name makes it a member of the set (`<set>-<n>`). */
export const isMemberOf = (set: StatefulSet, pod: Pod) =>
  parentAndOrdinal(pod.metadata?.name ?? '').parent === setName(set);

/** Whether the pod has the set's name, namespace and its own name label (upstream's identityMatches). */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod.metadata?.name ?? '');
  return (
    ordinal >= 0 &&
    parent === setName(set) &&
    pod.metadata?.name === podName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    pod.metadata?.labels?.[POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** The claims the pod of `ordinal` uses, by template name, as they are created (upstream's getPersistentVolumeClaims). */
export function claimsFor<C extends ClaimFields>(
  set: {
    metadata?: StatefulSetFields['metadata'];
    spec?: { selector?: { matchLabels?: Record<string, string> }; volumeClaimTemplates?: C[] };
  },
  ordinal: number,
): Map<string, C> {
  const out = new Map<string, C>();
  const selectorLabels = set.spec?.selector?.matchLabels ?? {};
  for (const template of set.spec?.volumeClaimTemplates ?? []) {
    const claim = structuredClone(template);
    claim.metadata = {
      ...claim.metadata,
      name: claimName(set, template, ordinal),
      namespace: set.metadata?.namespace,
      labels: { ...(claim.metadata?.labels ?? {}), ...selectorLabels },
    };
    delete (claim as { status?: unknown }).status;
    out.set(template.metadata?.name ?? '', claim);
  }
  return out;
}

/** Whether every claim template has the pod's volume pointing at the pod's claim (upstream's storageMatches). */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  return missingClaims(set, pod).length === 0;
}

/** The claim templates the pod has no volume for (or a volume pointing elsewhere). */
export function missingClaims(set: StatefulSet, pod: Pod): string[] {
  const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const out: string[] = [];
  for (const template of set.spec?.volumeClaimTemplates ?? []) {
    const v = volumes.get(template.metadata?.name ?? '');
    if (ordinal < 0 || v?.persistentVolumeClaim?.claimName !== claimName(set, template, ordinal))
      out.push(template.metadata?.name ?? '');
  }
  return out;
}

/**
 * Points the pod's volumes at its claims (upstream's updateStorage): one volume per claim template,
 * replacing a template volume of the same name, the pod's other volumes after them. Mutates `pod`.
 */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
  const claims = claimsFor(set, ordinal);
  const volumes: VolumeFields[] = [...claims].map(([name, claim]) => ({
    name,
    persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' },
  }));
  for (const v of pod.spec?.volumes ?? []) if (!claims.has(v.name)) volumes.push(v);
  pod.spec ??= {};
  pod.spec.volumes = volumes;
}

/**
 * Gives the pod the set's identity (upstream's updateIdentity): its name, namespace, the pod-name
 * label and (gate PodIndexLabel) the pod-index label. Mutates `pod`.
 */
export function updateIdentity(set: StatefulSet, pod: Pod, podIndexLabel: boolean): void {
  const ordinal = parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
  pod.metadata ??= {};
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata?.namespace;
  pod.metadata.labels ??= {};
  pod.metadata.labels[POD_NAME_LABEL] = pod.metadata.name;
  if (podIndexLabel) pod.metadata.labels[POD_INDEX_LABEL] = String(ordinal);
}
