import { goMarshal } from '@kruise/kube-compat';
import type { ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { encodeStruct } from '../revision/go-encode.ts';

/** Annotation with the state of a pod's in-place update (JSON). */
export const INPLACE_UPDATE_STATE_KEY = 'apps.kruise.io/inplace-update-state';
/** Legacy spelling, read and removed on the next write. */
export const INPLACE_UPDATE_STATE_KEY_OLD = 'inplace-update-state';
/** Annotation with the pending update while its grace period runs (JSON). */
export const INPLACE_UPDATE_GRACE_KEY = 'apps.kruise.io/inplace-update-grace';
/** Legacy spelling of the grace annotation. */
export const INPLACE_UPDATE_GRACE_KEY_OLD = 'inplace-update-grace';

/** Labels and annotations a container reads through env-from-metadata. */
export interface RefMetadata {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** `apps.kruise.io/inplace-update-state`, with upstream's JSON field names. */
export interface InPlaceUpdateState {
  revision: string;
  updateTimestamp: string;
  lastContainerStatuses?: Record<string, { imageID?: string }> | null;
  updateEnvFromMetadata?: boolean;
  updateResources?: boolean;
  updateImages?: boolean;
  nextContainerImages?: Record<string, string>;
  nextContainerRefMetadata?: Record<string, RefMetadata>;
  nextContainerResources?: Record<string, ResourceRequirements>;
  preCheckBeforeNext?: { containersRequiredReady?: string[] };
  containerBatchesRecord?: { timestamp: string; containers: string[] }[];
}

/** What an in-place update changes (upstream's UpdateSpec; the grace annotation stores it). */
export interface UpdateSpec {
  revision: string;
  containerImages?: Record<string, string>;
  containerRefMetadata?: Record<string, RefMetadata>;
  containerResources?: Record<string, ResourceRequirements>;
  /** A strategic merge patch for the pod's metadata (JSON text). */
  metaDataPatch?: string;
  updateEnvFromMetadata?: boolean;
  graceSeconds?: number;
}

const nonEmpty = <T extends object>(m: T | undefined | null): T | undefined =>
  m && Object.keys(m).length ? m : undefined;

const sortedMap = <T>(m: Record<string, T> | undefined, f: (v: T) => unknown) =>
  m
    ? Object.fromEntries(
        Object.keys(m)
          .sort()
          .map((k) => [k, f(m[k]!)]),
      )
    : undefined;

const meta = (m: RefMetadata) => encodeStruct(m as Record<string, unknown>, 'ObjectMeta');
const resources = (r: ResourceRequirements) =>
  encodeStruct(r as Record<string, unknown>, 'ResourceRequirements');

/** The state as Go's controller writes it (field order, omitempty, `null` for no last statuses). */
export function serializeState(state: InPlaceUpdateState): string {
  return goMarshal({
    revision: state.revision,
    updateTimestamp: state.updateTimestamp,
    lastContainerStatuses:
      sortedMap(state.lastContainerStatuses ?? undefined, (s) => (s.imageID ? { imageID: s.imageID } : {})) ??
      null,
    updateEnvFromMetadata: state.updateEnvFromMetadata || undefined,
    updateResources: state.updateResources || undefined,
    updateImages: state.updateImages || undefined,
    nextContainerImages: sortedMap(nonEmpty(state.nextContainerImages), (v) => v),
    nextContainerRefMetadata: sortedMap(nonEmpty(state.nextContainerRefMetadata), meta),
    nextContainerResources: sortedMap(nonEmpty(state.nextContainerResources), resources),
    preCheckBeforeNext: state.preCheckBeforeNext
      ? { containersRequiredReady: nonEmpty(state.preCheckBeforeNext.containersRequiredReady) }
      : undefined,
    containerBatchesRecord: nonEmpty(state.containerBatchesRecord)?.map((b) => ({
      timestamp: b.timestamp,
      containers: b.containers ?? null,
    })),
  });
}

/** The update spec as Go writes it into the grace annotation (metaDataPatch base64, as Go's []byte). */
export function serializeUpdateSpec(spec: UpdateSpec): string {
  return goMarshal({
    revision: spec.revision,
    containerImages: sortedMap(nonEmpty(spec.containerImages), (v) => v),
    containerRefMetadata: sortedMap(nonEmpty(spec.containerRefMetadata), meta),
    containerResources: sortedMap(nonEmpty(spec.containerResources), resources),
    metaDataPatch: spec.metaDataPatch ? Buffer.from(spec.metaDataPatch).toString('base64') : undefined,
    updateEnvFromMetadata: spec.updateEnvFromMetadata || undefined,
    graceSeconds: spec.graceSeconds || undefined,
  });
}

type Annotated = { metadata?: { annotations?: Record<string, string> } };

/** The state annotation's text (new key first, then the legacy one). */
export function stateText(pod: Annotated): string | undefined {
  const a = pod.metadata?.annotations;
  return a?.[INPLACE_UPDATE_STATE_KEY] ?? a?.[INPLACE_UPDATE_STATE_KEY_OLD];
}

/** The grace annotation's text (new key first, then the legacy one). */
export function graceText(pod: Annotated): string | undefined {
  const a = pod.metadata?.annotations;
  return a?.[INPLACE_UPDATE_GRACE_KEY] ?? a?.[INPLACE_UPDATE_GRACE_KEY_OLD];
}

/**
 * The pod's in-place update state: undefined when it has none.
 * @throws SyntaxError when the annotation is not JSON (upstream reports the error too).
 */
export function readState(pod: Annotated): InPlaceUpdateState | undefined {
  const text = stateText(pod);
  return text === undefined ? undefined : (JSON.parse(text) as InPlaceUpdateState);
}

/** The pending update spec of a pod in its grace period. @throws SyntaxError on bad JSON. */
export function readGraceSpec(pod: Annotated): UpdateSpec | undefined {
  const text = graceText(pod);
  if (text === undefined) return undefined;
  const spec = JSON.parse(text) as UpdateSpec;
  if (spec.metaDataPatch) spec.metaDataPatch = Buffer.from(spec.metaDataPatch, 'base64').toString('utf8');
  return spec;
}

/** Removes both spellings of the grace annotation. Mutates `pod`. */
export function removeGrace(pod: Annotated): void {
  const a = pod.metadata?.annotations;
  if (!a) return;
  delete a[INPLACE_UPDATE_GRACE_KEY];
  delete a[INPLACE_UPDATE_GRACE_KEY_OLD];
}
