import type { StatefulSet } from '@kruise/api';
import { type OrdinalRange, replicasRange, reservedOrdinals } from '@kruise/kube-compat/statefulset-ordinals';

/** The first ordinal: `spec.ordinals.start` under gate StatefulSetStartOrdinal, else 0. */
export function startOrdinal(set: StatefulSet, gates: { enabled(name: string): boolean }): number {
  return gates.enabled('StatefulSetStartOrdinal') ? (set.spec?.ordinals?.start ?? 0) : 0;
}

/** Where the set's replicas live: `replicas` ordinals from the start ordinal, reserved ones skipped. */
export function ordinalRange(set: StatefulSet, gates: { enabled(name: string): boolean }): OrdinalRange {
  return replicasRange(
    set.spec?.replicas ?? 1,
    startOrdinal(set, gates),
    reservedOrdinals(set.spec?.reserveOrdinals),
  );
}
