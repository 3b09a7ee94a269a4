import type { SidecarSet } from '@kruise/api';
import { goMarshal } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  SIDECARSET_INJECTED_LIST_ANNOTATION,
} from '../../../workload/sidecarset/keys.ts';
import { writePodSidecarSetHash } from '../../../workload/sidecarset/pod-hash.ts';

/** Go's encoding/json message for a value that is not a JSON object of `want` values. */
function unmarshalError(raw: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return `invalid character in ${JSON.stringify(raw)} looking for beginning of value`;
  }
  if (parsed === null) return undefined;
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    return `json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type map[string]string`;
  const values = Object.values(parsed as Record<string, unknown>).filter((v) => v !== null);
  if (values.every((v) => typeof v === 'object' && !Array.isArray(v))) return undefined;
  const bad = values.find((v) => typeof v !== 'string');
  if (bad === undefined) return undefined;
  return `json: cannot unmarshal ${Array.isArray(bad) ? 'array' : typeof bad} into Go value of type string`;
}

/**
 * Refuses a pod whose SidecarSet hash annotations cannot be read, in upstream's words
 * (`pod(ns/name) invalid annotations[kruise.io/sidecarset-hash] value …, unmarshal failed: …`).
 * @throws Error naming the annotation.
 */
export function checkHashAnnotations(pod: Pod): void {
  for (const key of [SIDECARSET_HASH_ANNOTATION, SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]) {
    const raw = pod.metadata?.annotations?.[key];
    const err = raw ? unmarshalError(raw) : undefined;
    if (err)
      throw new Error(
        `pod(${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}) invalid annotations[${key}] value ${raw}, unmarshal failed: ${err}`,
      );
  }
}

/**
 * The pod's SidecarSet annotations after injection: each injecting SidecarSet's hash and
 * hash-without-image entry (library writePodSidecarSetHash, the revision from the chosen
 * SidecarSet's latestRevision), and the injected list (the pod's names plus every matched one, sorted).
 */
export function writeInjectionAnnotations(
  annotations: Record<string, string>,
  matched: SidecarSet[],
  injecting: SidecarSet[],
  now: Date,
): void {
  for (const sidecarSet of injecting)
    writePodSidecarSetHash(annotations, sidecarSet, { withoutImage: true, now });
  for (const key of [SIDECARSET_HASH_ANNOTATION, SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION])
    annotations[key] ??= goMarshal({});
  const names = new Set((annotations[SIDECARSET_INJECTED_LIST_ANNOTATION] ?? '').split(',').filter(Boolean));
  for (const s of matched) names.add(s.metadata?.name ?? '');
  annotations[SIDECARSET_INJECTED_LIST_ANNOTATION] = [...names].sort().join(',');
}
