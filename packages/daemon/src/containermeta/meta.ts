import {
  expectedEnvFromMetadataHash,
  GROUP,
  envFromMetadata as metadataEnvs,
  RUNTIME_CONTAINERS_META_ANNOTATION,
} from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** SidecarSet's annotation on pods it injected into (containermeta watches those too). */
export const SIDECARSET_HASH_ANNOTATION = 'kruise.io/sidecarset-hash';

/** One container of `apps.kruise.io/runtime-containers-meta`, with upstream's field names. */
export interface RuntimeContainerMeta {
  name: string;
  containerID: string;
  restartCount: number;
  hashes: { plainHash: number; extractedEnvFromMetadataHash?: number };
}

/** The annotation's value. */
export interface RuntimeContainerMetaSet {
  containers: RuntimeContainerMeta[];
}

/** A container as the runtime reports it (kubelet's labels and annotations read back). */
export interface RuntimeContainer {
  name: string;
  /** `<runtime>://<id>`. */
  id: string;
  restartCount: number;
  /** kubelet's container hash (`io.kubernetes.container.hash`). */
  hash: number;
  running: boolean;
}

/** The pod's runtime-containers-meta, or undefined (also for unreadable JSON). */
export function readMetaSet(pod: Pod): RuntimeContainerMetaSet | undefined {
  const text = pod.metadata?.annotations?.[RUNTIME_CONTAINERS_META_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const set = JSON.parse(text) as RuntimeContainerMetaSet;
    return Array.isArray(set?.containers) ? set : undefined;
  } catch {
    return undefined;
  }
}

/** The annotation text as upstream's DumpJSON writes it (field order; a zero env hash left out). */
export function dumpMetaSet(set: RuntimeContainerMetaSet): string {
  return JSON.stringify({
    containers: set.containers.map((c) => ({
      name: c.name,
      containerID: c.containerID,
      restartCount: c.restartCount,
      hashes: {
        plainHash: c.hashes.plainHash,
        ...(c.hashes.extractedEnvFromMetadataHash
          ? { extractedEnvFromMetadataHash: c.hashes.extractedEnvFromMetadataHash }
          : {}),
      },
    })),
  });
}

/** Whether the daemon looks after this pod: owned by a Kruise workload, or injected by a SidecarSet. */
export function isWatched(pod: Pod): boolean {
  const owner = pod.metadata?.ownerReferences?.find((r) => r.controller);
  const kruise = owner !== undefined && owner.apiVersion.split('/')[0] === GROUP;
  return kruise || pod.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION] !== undefined;
}

/**
 * Whether a pod change needs a sync (upstream's eventFilter): a watched pod whose containers
 * changed in number, whose reported meta misses a started container or names another container
 * ID, or (with env-from-metadata) whose expected env hash moved.
 */
export function needsSync(oldPod: Pod | undefined, pod: Pod, envFromMetadata: boolean): boolean {
  if (!isWatched(pod)) return false;
  if (oldPod && (oldPod.spec?.containers?.length ?? 0) !== (pod.spec?.containers?.length ?? 0)) return true;
  const meta = readMetaSet(pod);
  const statuses = pod.status?.containerStatuses ?? [];
  for (const [i, s] of statuses.entries()) {
    if (!s.containerID) continue;
    if (!meta || meta.containers.length !== statuses.length) return true;
    if (meta.containers[i]?.containerID !== s.containerID) return true;
    const spec = pod.spec?.containers?.[i];
    if (envFromMetadata && spec) {
      const expected = expectedEnvFromMetadataHash(spec, pod.metadata ?? {});
      if (expected !== (meta.containers[i]?.hashes.extractedEnvFromMetadataHash ?? 0)) return true;
      const oldSpec = oldPod?.spec?.containers?.[i];
      if (oldPod && oldSpec && expected !== expectedEnvFromMetadataHash(oldSpec, oldPod.metadata ?? {}))
        return true;
    }
  }
  return false;
}

/** `env` output as a map (what the daemon reads from a running container). */
export function parseEnvOutput(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.trim().split('\n')) {
    const l = line.trim();
    const at = l.indexOf('=');
    if (at > 0) out[l.slice(0, at)] = l.slice(at + 1);
  }
  return out;
}

/** The result of one sync: the meta to report, containers to restart, and whether to look again soon. */
export interface MetaSync {
  set: RuntimeContainerMetaSet;
  restart: string[];
  retry: boolean;
}

/**
 * The pod's runtime-containers-meta from what the runtime reports (upstream's
 * manageContainerMetaSet): an entry per container status the runtime knows, kept from the old set
 * while the container ID is the same, else new with kubelet's hash; with env-from-metadata, the
 * hash of the env a running container actually has (read by `currentEnvHash`, once per container
 * ID), and — while InPlaceUpdateReady is False — the containers whose actual hash differs from the
 * one the pod's labels and annotations now give, to be restarted.
 */
export async function syncMetaSet(
  pod: Pod,
  runtime: RuntimeContainer[],
  envFromMetadata: boolean,
  currentEnvHash: (container: NonNullable<Pod['spec']>['containers'][number], id: string) => Promise<number>,
): Promise<MetaSync> {
  const old = readMetaSet(pod);
  const set: RuntimeContainerMetaSet = { containers: [] };
  const restart: string[] = [];
  let retry = false;
  const inPlaceUnready = pod.status?.conditions?.some(
    (c) => c.type === 'InPlaceUpdateReady' && c.status === 'False',
  );
  for (const s of pod.status?.containerStatuses ?? []) {
    const rt = runtime.find((r) => r.name === s.name);
    const spec = pod.spec?.containers?.find((c) => c.name === s.name);
    if (!rt || !spec) continue;
    const kept = old?.containers.find((c) => c.containerID === rt.id);
    const meta: RuntimeContainerMeta = kept
      ? structuredClone(kept)
      : { name: rt.name, containerID: rt.id, restartCount: rt.restartCount, hashes: { plainHash: rt.hash } };
    if (envFromMetadata) {
      // A container with no env from metadata has the hash of none, known without the container
      // running (no exec reads it): reported at once, not in a second write once it runs.
      if (!meta.hashes.extractedEnvFromMetadataHash && (rt.running || !metadataEnvs(spec).length)) {
        try {
          meta.hashes.extractedEnvFromMetadataHash = await currentEnvHash(spec, rt.id);
        } catch {
          retry = true;
        }
      }
      const actual = meta.hashes.extractedEnvFromMetadataHash ?? 0;
      if (inPlaceUnready && actual > 0 && actual !== expectedEnvFromMetadataHash(spec, pod.metadata ?? {}))
        restart.push(rt.id);
    }
    set.containers.push(meta);
  }
  return { set, restart, retry };
}

/** Whether two meta sets say the same (no status write needed). */
export const sameMetaSet = (a: RuntimeContainerMetaSet | undefined, b: RuntimeContainerMetaSet) =>
  a !== undefined && dumpMetaSet(a) === dumpMetaSet(b);
