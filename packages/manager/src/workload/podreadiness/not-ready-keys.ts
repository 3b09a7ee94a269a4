import { KRUISE_POD_READY_CONDITION } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { mutableStatus } from '../pod-state.ts';
import { hasReadinessGate, recomputeReadyCondition } from './conditions.ts';

/** Who holds a pod not-ready: one entry of the `KruisePodReady` condition's JSON message. */
export interface NotReadyKey {
  userAgent: string;
  key: string;
}

/** The holders recorded in a pod's `KruisePodReady` condition. */
export function notReadyKeys(pod: Pod): NotReadyKey[] {
  const c = pod.status?.conditions?.find((x) => x.type === KRUISE_POD_READY_CONDITION);
  if (!c?.message) return [];
  try {
    const parsed = JSON.parse(c.message);
    return Array.isArray(parsed) ? parsed.filter((h) => h && typeof h.key === 'string') : [];
  } catch {
    return [];
  }
}

const same = (a: NotReadyKey, b: NotReadyKey) => a.userAgent === b.userAgent && a.key === b.key;

/** Upstream's message: the holders sorted by user agent then key, as JSON. */
function dump(keys: NotReadyKey[]): string {
  const sorted = [...keys].sort((a, b) =>
    a.userAgent === b.userAgent
      ? a.key < b.key
        ? -1
        : a.key > b.key
          ? 1
          : 0
      : a.userAgent < b.userAgent
        ? -1
        : 1,
  );
  return JSON.stringify(sorted.map((k) => ({ userAgent: k.userAgent, key: k.key })));
}

/** Whether the pod's KruisePodReady condition is False because of this holder already. */
export function holdsNotReady(pod: Pod, holder: NotReadyKey): boolean {
  const c = pod.status?.conditions?.find((x) => x.type === KRUISE_POD_READY_CONDITION);
  if (!c || c.status === 'True' || !c.message) return false;
  return notReadyKeys(pod).some((k) => same(k, holder));
}

/**
 * Adds a holder to the pod's KruisePodReady condition (False) and recomputes Ready; returns the
 * changed pod, or undefined when there is nothing to write (no gate, or already held). Pure.
 */
export function withNotReadyKey(pod: Pod, holder: NotReadyKey, now = kubeTime()): Pod | undefined {
  if (!hasReadinessGate(pod, KRUISE_POD_READY_CONDITION)) return undefined;
  const next = structuredClone(pod);
  const status = mutableStatus(next);
  const conditions = status.conditions ?? [];
  status.conditions = conditions;
  const c = conditions.find((x) => x.type === KRUISE_POD_READY_CONDITION);
  const keys = c ? notReadyKeys(next) : [];
  if (keys.some((k) => same(k, holder)) && c?.status === 'False') return undefined;
  if (!keys.some((k) => same(k, holder))) keys.push(holder);
  const condition = {
    type: KRUISE_POD_READY_CONDITION,
    status: 'False',
    message: dump(keys),
    lastTransitionTime: now,
  };
  if (c) Object.assign(c, condition);
  else conditions.push(condition);
  recomputeReadyCondition(next, now);
  return next;
}

/**
 * Removes a holder; the condition turns True when none is left. Returns the changed pod, or
 * undefined when the holder was not there. Pure.
 */
export function withoutNotReadyKey(pod: Pod, holder: NotReadyKey, now = kubeTime()): Pod | undefined {
  if (!hasReadinessGate(pod, KRUISE_POD_READY_CONDITION)) return undefined;
  const next = structuredClone(pod);
  const c = next.status?.conditions?.find((x) => x.type === KRUISE_POD_READY_CONDITION);
  if (!c) return undefined;
  const keys = notReadyKeys(next);
  const left = keys.filter((k) => !same(k, holder));
  if (left.length === keys.length) return undefined;
  if (left.length === 0) c.status = 'True';
  c.message = dump(left);
  c.lastTransitionTime = now;
  return next;
}
