import { isContainerReferenceToMeta } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { VCT_HASH_ANNOTATION } from '../revision/payload.ts';
import { createPatch, type PatchOperation, unescapePathSegment } from './json-patch.ts';
import { twoWayMetadataPatch } from './metadata-patch.ts';
import type { RefMetadata, UpdateSpec } from './state.ts';
import { podQos, recordResourceChange } from './vertical.ts';

const CONTAINER_IMAGE = /^\/spec\/containers\/([0-9]+)\/image$/;
const CONTAINER_RESOURCES = /^\/spec\/containers\/([0-9]+)\/resources\/.*$/;

/** The feature gates that change what is in-place-able. */
export interface InPlaceGates {
  /** InPlaceUpdateEnvFromMetadata (default on). */
  envFromMetadata?: boolean;
  /** InPlaceWorkloadVerticalScaling (default off). */
  verticalScaling?: boolean;
  /** RecreatePodWhenChangeVCTInCloneSetGate (default off). */
  recreateOnVolumeClaimTemplateChange?: boolean;
}

/** Options of one in-place decision. */
export interface CalculateOptions {
  gates: InPlaceGates;
  gracePeriodSeconds?: number;
  /** InPlaceOnly ignores a volumeClaimTemplates change. */
  ignoreVolumeClaimTemplatesHashDiff?: boolean;
  /**
   * The revision a pod is labelled with once updated (upstream's GetRevision): the revision's name
   * by default; Advanced DaemonSet labels its pods with the revision's hash.
   */
  revisionOf?: (revision: ControllerRevision) => string;
}

/** The pod template a revision stores. */
export function templateFromRevision(revision: ControllerRevision): PodTemplateSpec {
  return structuredClone(((revision.data as any)?.spec?.template ?? {}) as PodTemplateSpec);
}

/** Whether the two revisions' volumeClaimTemplates hashes (when both have one) agree. */
function vctHashesAgree(a: ControllerRevision, b: ControllerRevision): boolean {
  const ha = a.metadata?.annotations?.[VCT_HASH_ANNOTATION];
  const hb = b.metadata?.annotations?.[VCT_HASH_ANNOTATION];
  return ha === undefined || hb === undefined || ha === hb;
}

/** The metadata-derived env changes of the metadata ops; removes their keys from both templates. */
function recordRefMetadata(
  ops: PatchOperation[],
  oldT: PodTemplateSpec,
  newT: PodTemplateSpec,
  spec: UpdateSpec,
): void {
  for (const op of ops) {
    if (op.op !== 'replace' && op.op !== 'add') continue;
    const words = op.path.split('/');
    if (words.length < 4) continue;
    const field = words[2];
    if (field !== 'labels' && field !== 'annotations') continue;
    const key = unescapePathSegment(words.slice(3).join('/'));
    for (const c of newT.spec?.containers ?? []) {
      if (!isContainerReferenceToMeta(c, `metadata.${field}`, key)) continue;
      const refs: Record<string, RefMetadata> = spec.containerRefMetadata ?? {};
      spec.containerRefMetadata = refs;
      const meta: RefMetadata = refs[c.name] ?? {};
      refs[c.name] = meta;
      meta[field] = { ...meta[field], [key]: String(op.value) };
      delete oldT.metadata?.[field]?.[key];
      delete newT.metadata?.[field]?.[key];
      spec.updateEnvFromMetadata = true;
    }
  }
}

/**
 * What updating a pod from `oldRevision` to `newRevision` in place changes, or undefined when it
 * cannot be done in place (upstream's defaultCalculateInPlaceUpdateSpec): only container images
 * (and with vertical scaling cpu/memory values) may change in the spec; template metadata changes
 * become a metadata patch, and labels/annotations read by env vars become per-container
 * metadata that restarts those containers.
 */
export function calculateInPlaceUpdateSpec(
  oldRevision: ControllerRevision | undefined,
  newRevision: ControllerRevision | undefined,
  opts: CalculateOptions,
): UpdateSpec | undefined {
  if (!oldRevision || !newRevision) return undefined;
  const patches = createPatch(
    (oldRevision.data ?? {}) as Record<string, unknown>,
    (newRevision.data ?? {}) as Record<string, unknown>,
  );
  if (
    opts.gates.recreateOnVolumeClaimTemplateChange &&
    !opts.ignoreVolumeClaimTemplatesHashDiff &&
    !vctHashesAgree(oldRevision, newRevision)
  )
    return undefined;
  const oldT = templateFromRevision(oldRevision);
  const newT = templateFromRevision(newRevision);
  const spec: UpdateSpec = {
    revision: opts.revisionOf ? opts.revisionOf(newRevision) : (newRevision.metadata?.name ?? ''),
    containerImages: {},
    containerResources: {},
    containerRefMetadata: {},
  };
  if (opts.gracePeriodSeconds) spec.graceSeconds = opts.gracePeriodSeconds;
  const metadataOps: PatchOperation[] = [];
  for (const op of patches) {
    const path = op.path.replace('/spec/template', '');
    if (!path.startsWith('/spec/')) {
      if (path.startsWith('/metadata/')) {
        metadataOps.push({ ...op, path });
        continue;
      }
      return undefined;
    }
    if (op.op !== 'replace') return undefined;
    const image = CONTAINER_IMAGE.exec(path);
    if (image) {
      const c = oldT.spec?.containers?.[Number(image[1])];
      if (!c) return undefined;
      spec.containerImages![c.name] = String(op.value);
      continue;
    }
    if (opts.gates.verticalScaling && CONTAINER_RESOURCES.test(path)) {
      try {
        recordResourceChange(
          { ...op, path },
          oldT.spec,
          spec.containerResources as Record<string, ResourceRequirements>,
        );
      } catch {
        return undefined;
      }
      continue;
    }
    return undefined;
  }
  if (
    opts.gates.verticalScaling &&
    Object.keys(spec.containerResources!).length &&
    podQos(oldT.spec) !== podQos(newT.spec)
  )
    return undefined;
  if (metadataOps.length) {
    if (opts.gates.envFromMetadata) recordRefMetadata(metadataOps, oldT, newT, spec);
    spec.metaDataPatch = twoWayMetadataPatch(oldT.metadata ?? {}, newT.metadata ?? {});
  }
  return spec;
}

/** Whether only resources change (no images, no env-from-metadata): a resize needs no restart. */
export function isVerticalUpdateOnly(spec: UpdateSpec): boolean {
  return (
    Object.keys(spec.containerResources ?? {}).length > 0 &&
    Object.keys(spec.containerImages ?? {}).length === 0 &&
    !spec.updateEnvFromMetadata
  );
}
