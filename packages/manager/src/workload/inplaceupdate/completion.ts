import { expectedEnvFromMetadataHash, RUNTIME_CONTAINERS_META_ANNOTATION } from '@kruise/api';
import { deepHashJsonBytes, goMarshal } from '@kruise/kube-compat';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { encodeStruct } from '../revision/go-encode.ts';
import { hasNextBatch } from './batches.ts';
import { graceText, type InPlaceUpdateState, readState } from './state.ts';
import { resourcesNotUpdated } from './vertical.ts';

/** One container of `apps.kruise.io/runtime-containers-meta` (kruise-daemon reports it). */
export interface RuntimeContainerMeta {
  name: string;
  containerID: string;
  restartCount: number;
  hashes: { plainHash: number; extractedEnvFromMetadataHash?: number };
}

/** The pod's runtime-containers-meta, or undefined. @throws SyntaxError on bad JSON. */
export function runtimeContainerMeta(pod: Pod): { containers: RuntimeContainerMeta[] } | undefined {
  const text = pod.metadata?.annotations?.[RUNTIME_CONTAINERS_META_ANNOTATION];
  return text === undefined ? undefined : JSON.parse(text);
}

/** Kubelet's container hash (`@kruise/api`'s kubelet-hash, the Kubernetes ≥ 1.31 algorithm). */
export type KubeletContainerHash = (container: Container) => number;

/** Kruise's hash of a container for kubelets before 1.31: FNV-32a over its Go JSON's spew dump. */
export function legacyContainerHash(container: Container): number {
  return deepHashJsonBytes(
    goMarshal(encodeStruct(container as unknown as Record<string, unknown>, 'Container')),
  );
}

/** What completion checks need besides the pod. */
export interface CompletionOptions {
  kubeletHash: KubeletContainerHash;
  verticalScaling?: boolean;
}

function hashesConsistent(
  pod: Pod,
  meta: { containers: RuntimeContainerMeta[] },
  which: 'plain' | 'env',
  opts: CompletionOptions,
): boolean {
  for (const c of pod.spec?.containers ?? []) {
    const status = pod.status?.containerStatuses?.find((s) => s.name === c.name);
    if (!status) return false;
    const m = meta.containers.find((x) => x.name === c.name);
    if (!m || m.containerID !== status.containerID) return false;
    if (which === 'plain') {
      if (m.hashes.plainHash !== opts.kubeletHash(c) && m.hashes.plainHash !== legacyContainerHash(c))
        return false;
    } else if (
      (m.hashes.extractedEnvFromMetadataHash ?? 0) !== expectedEnvFromMetadataHash(c, pod.metadata ?? {})
    )
      return false;
  }
  return true;
}

/** An image name as kubelet reports it: without a tag it is `:latest`. */
const withTag = (image: string | undefined) =>
  image && image.split(':').length > 1 ? image : `${image ?? ''}:latest`;

/**
 * Why the current batch's containers have not finished updating, or undefined when they have
 * (upstream's defaultCheckContainersInPlaceUpdateCompleted): env-from-metadata hashes reported by
 * kruise-daemon, resources (vertical scaling), kubelet's container hash in runtime-containers-meta,
 * else a changed imageID, or the image name kubelet reports (a new tag of the same digest).
 */
export function containersNotUpdated(
  pod: Pod,
  state: InPlaceUpdateState,
  opts: CompletionOptions,
): string | undefined {
  let meta: { containers: RuntimeContainerMeta[] } | undefined;
  try {
    meta = runtimeContainerMeta(pod);
  } catch (err) {
    return (err as Error).message;
  }
  if (state.updateEnvFromMetadata) {
    if (!meta) return 'waiting for all containers hash consistent, but runtime-container-meta not found';
    if (!hashesConsistent(pod, meta, 'env', opts)) return 'waiting for all containers hash consistent';
  }
  if (opts.verticalScaling && state.updateResources) {
    const why = resourcesNotUpdated(pod);
    if (why) return why;
  }
  if (meta && hashesConsistent(pod, meta, 'plain', opts)) return undefined;
  const images = new Map((pod.spec?.containers ?? []).map((c) => [c.name, withTag(c.image)]));
  const last = { ...(state.lastContainerStatuses ?? {}) };
  for (const s of pod.status?.containerStatuses ?? []) {
    const old = last[s.name];
    if (!old) continue;
    if (old.imageID === s.imageID && images.get(s.name) !== s.image)
      return `container ${s.name} imageID not changed`;
    delete last[s.name];
  }
  if (Object.keys(last).length) return `not found statuses of containers ${JSON.stringify(last)}`;
  return undefined;
}

/**
 * Why the pod's in-place update is not complete, or undefined when it is (or there was none):
 * still in grace, later batches pending, or containers not updated.
 */
export function podUpdateNotCompleted(pod: Pod, opts: CompletionOptions): string | undefined {
  if (graceText(pod) !== undefined) return 'still in grace period of in-place update';
  let state: InPlaceUpdateState | undefined;
  try {
    state = readState(pod);
  } catch (err) {
    return (err as Error).message;
  }
  if (!state) return undefined;
  if (hasNextBatch(state)) return 'existing containers to in-place update in next batches';
  return containersNotUpdated(pod, state, opts);
}
