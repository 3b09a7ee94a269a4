import { parseToLabelSelector } from '@kruise/kube-compat/label-selector-parse';
import {
  isStatefulSetLike,
  PPS_WATCH_CUSTOM_WORKLOAD_WHITELIST_KEY,
  parseCustomWorkloadWhitelist,
} from '../configuration/index.ts';
import { knownWorkloadOf } from './known-workloads.ts';
import { type FinderStep, resolved, uidMatches } from './resolved.ts';
import { type FinderSources, type ObjectRef, REPLICAS_UNKNOWN } from './types.ts';

/**
 * The finder's steps for kinds it does not read typed, in upstream's order: StatefulSet-like
 * workloads (whitelisted in kruise-configuration), the scale subresource, any object.
 */
export function customSteps(sources: FinderSources): FinderStep[] {
  /** An object of any kind; a known workload from its source, as the typed steps read it. */
  const anyObject = (ref: ObjectRef, namespace: string) => {
    const known = knownWorkloadOf(ref.apiVersion, ref.kind);
    return known ? sources.workload(known, namespace, ref.name) : sources.object(ref, namespace);
  };

  /** A whitelisted StatefulSet-like workload: its integer spec.replicas, else 0; no selector. */
  const statefulSetLike: FinderStep = async (ref, namespace) => {
    const data = await sources.kruiseConfiguration();
    const whitelist = parseCustomWorkloadWhitelist(data?.[PPS_WATCH_CUSTOM_WORKLOAD_WHITELIST_KEY]);
    if (!isStatefulSetLike(whitelist, ref.apiVersion, ref.kind)) return undefined;
    const obj = await anyObject(ref, namespace);
    if (!obj || !uidMatches(ref, obj)) return undefined;
    const replicas = obj.spec?.replicas;
    return resolved(ref, obj, Number.isInteger(replicas) ? replicas : 0);
  };

  /** Any other kind through its scale subresource: spec.replicas and status.selector. */
  const scaleSubresource: FinderStep = async (ref, namespace) => {
    if (knownWorkloadOf(ref.apiVersion, ref.kind)) return undefined;
    const scale = await sources.scale(ref, namespace);
    if (!scale || !uidMatches(ref, scale)) return undefined;
    const selector = parseToLabelSelector(scale.status?.selector ?? '');
    return resolved(ref, scale, scale.spec?.replicas ?? 0, { selector });
  };

  /** Any object at all: its identity and metadata, and a scale nobody knows. */
  const object: FinderStep = async (ref, namespace) => {
    const obj = await anyObject(ref, namespace);
    return obj && uidMatches(ref, obj) ? resolved(ref, obj, REPLICAS_UNKNOWN) : undefined;
  };

  return [statefulSetLike, scaleSubresource, object];
}
