import type { SidecarContainer } from '@kruise/api';
import { isQualifiedName } from '@kruise/kube-compat';
import type { EnvVar, ObjectFieldSelector, Pod } from 'kubernetes-types/core/v1.js';
import { splitSubscriptedPath } from '../../../workload/sidecarset/field-path.ts';
import { appendNew } from './append-new.ts';

/**
 * The container name a `sourceContainerNameFrom.fieldRef` names (upstream's
 * ExtractContainerNameFromFieldPath): the pod's label or annotation under the subscripted key;
 * undefined for any other field path or an invalid key (upstream logs and skips the entry).
 */
export function containerNameFromField(ref: ObjectFieldSelector, pod: Pod): string | undefined {
  const split = splitSubscriptedPath(ref.fieldPath);
  if (!split) return undefined;
  const [path, key] = split;
  if (path === 'metadata.annotations')
    return isQualifiedName(key.toLowerCase()) ? (pod.metadata?.annotations?.[key] ?? '') : undefined;
  if (path === 'metadata.labels')
    return isQualifiedName(key) ? (pod.metadata?.labels?.[key] ?? '') : undefined;
  return undefined;
}

/**
 * The env vars a sidecar copies from the pod's containers (upstream's GetSidecarTransferEnvs): for
 * each `transferEnv`, `envName` and `envNames` (sorted, once each) from `sourceContainerName` or
 * the container `sourceContainerNameFrom` names; a variable the container lacks is skipped.
 */
export function transferredEnvs(sidecar: SidecarContainer, pod: Pod): EnvVar[] {
  const inPod = new Map<string, EnvVar>();
  for (const c of pod.spec?.containers ?? [])
    for (const e of c.env ?? []) inPod.set(`${c.name}/${e.name}`, e);
  const out: EnvVar[] = [];
  for (const t of sidecar.transferEnv ?? []) {
    const names = new Set<string>(t.envNames ?? []);
    if (t.envName) names.add(t.envName);
    let source = t.sourceContainerName ?? '';
    if (t.sourceContainerNameFrom?.fieldRef) {
      const named = containerNameFromField(t.sourceContainerNameFrom.fieldRef, pod);
      if (named === undefined) continue;
      source = named;
    }
    for (const name of [...names].sort()) {
      const env = inPod.get(`${source}/${name}`);
      if (env) out.push(env);
    }
  }
  return out;
}

/** util.MergeEnvVar: `original` then each of `additional` whose name is not there yet. */
export const mergeEnvVars = (original: EnvVar[], additional: EnvVar[]): EnvVar[] =>
  appendNew(original, additional, (e) => e.name);
