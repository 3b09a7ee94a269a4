import type { Pod } from 'kubernetes-types/core/v1.js';
import { SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION } from './keys.ts';

/** The two copies a hot-upgrade sidecar `name` runs as in a pod: `name-1` and `name-2`. */
export function hotUpgradeNames(name: string): [string, string] {
  return [`${name}-1`, `${name}-2`];
}

/** The pod's working copy of each hot-upgrade sidecar (`{"envoy":"envoy-1"}`); unreadable → none. */
export function workingHotUpgradeContainers(pod: Pick<Pod, 'metadata'>): Record<string, string> {
  const raw = pod.metadata?.annotations?.[SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION];
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, string>)
      : {};
  } catch {
    return {};
  }
}

/**
 * The working copy of hot-upgrade sidecar `name` in the pod and the other one (the empty copy, or
 * during an upgrade the older one): `name-1` works when the annotation says so, `name-2` otherwise.
 */
export function hotUpgradeContainers(
  name: string,
  pod: Pick<Pod, 'metadata'>,
): { working: string; other: string } {
  const [one, two] = hotUpgradeNames(name);
  return workingHotUpgradeContainers(pod)[name] === one
    ? { working: one, other: two }
    : { working: two, other: one };
}
