import { deepHashJsonBytes, goMarshal } from '@kruise/kube-compat';
import type { Container } from 'kubernetes-types/core/v1.js';

/** Env names never counted as metadata-derived (SidecarSet's own version variables). */
const EXCLUDED_ENVS = new Set(['SIDECARSET_VERSION', 'SIDECARSET_VERSION_ALT']);

/** Kubernetes' fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['k']` → [`metadata.labels`, `k`]. */
export function splitSubscriptedPath(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const at = s.indexOf("['");
  if (at <= 0) return undefined;
  return { path: s.slice(0, at), subscript: s.slice(at + 2) };
}

interface MetadataEnv {
  name: string;
  path: string;
  subscript: string;
}

/** The container's env vars read from a pod label or annotation (downward API with a subscript). */
export function envFromMetadata(container: Pick<Container, 'env'>): MetadataEnv[] {
  const out: MetadataEnv[] = [];
  for (const env of container.env ?? []) {
    if (env.value || !env.valueFrom?.fieldRef || EXCLUDED_ENVS.has(env.name)) continue;
    const split = splitSubscriptedPath(env.valueFrom.fieldRef.fieldPath ?? '');
    if (!split) continue;
    if (split.path !== 'metadata.labels' && split.path !== 'metadata.annotations') continue;
    out.push({ name: env.name, ...split });
  }
  return out;
}

/** Whether a container has an env var read from `path` (`metadata.labels`/`metadata.annotations`) key `key`. */
export function isContainerReferenceToMeta(
  container: Pick<Container, 'env'>,
  path: string,
  key: string,
): boolean {
  return envFromMetadata(container).some((e) => e.path === path && e.subscript === key);
}

function hashEnvs(envs: { name: string; value: string }[]): number {
  if (envs.length === 0) return deepHashJsonBytes('null');
  const sorted = [...envs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return deepHashJsonBytes(goMarshal(sorted.map((e) => ({ name: e.name, value: e.value || undefined }))));
}

/**
 * The env-from-metadata hash a container should have given the pod's current labels and
 * annotations (Kruise's `extractedEnvFromMetadataHash`): FNV-32a over the name-sorted
 * `[{name, value}]` of its metadata-derived env vars.
 */
export function expectedEnvFromMetadataHash(
  container: Pick<Container, 'env'>,
  meta: { labels?: Record<string, string>; annotations?: Record<string, string> },
): number {
  return hashEnvs(
    envFromMetadata(container).map((e) => ({
      name: e.name,
      value: (e.path === 'metadata.labels' ? meta.labels : meta.annotations)?.[e.subscript] ?? '',
    })),
  );
}

/**
 * The same hash over the values a running container actually has, read by `readValue` (kruise-daemon
 * execs `env` in the container). `readValue` may throw; the error propagates.
 */
export async function currentEnvFromMetadataHash(
  container: Pick<Container, 'env'>,
  readValue: (name: string) => Promise<string> | string,
): Promise<number> {
  const envs: { name: string; value: string }[] = [];
  for (const e of envFromMetadata(container)) envs.push({ name: e.name, value: await readValue(e.name) });
  return hashEnvs(envs);
}
