import type { RollingUpdateStatefulSetStrategy, StatefulSetUpdateStrategy } from '@kruise/api';
import type { PersistentVolumeClaim, PodReadinessGate } from 'kubernetes-types/core/v1.js';
import { GoValue, goIntOrString, goPointer, goSlice, goString, goStruct } from '../field-errors.ts';

/**
 * Advanced StatefulSet's values as Go's `%#v` prints them in upstream's denials (a field error
 * shows the value it refuses).
 */

const present = (v: unknown) => v !== undefined && v !== null;

/** `v1beta1.RollingUpdateStatefulSetStrategy{Partition:(*int32)(…), …}`. */
export function goRollingUpdate(r: RollingUpdateStatefulSetStrategy): GoValue {
  return goStruct('v1beta1.RollingUpdateStatefulSetStrategy', [
    ['Partition', goPointer('int32', present(r.partition))],
    ['MaxUnavailable', goPointer('intstr.IntOrString', present(r.maxUnavailable))],
    ['PodUpdatePolicy', goString(r.podUpdatePolicy)],
    ['Paused', String(r.paused === true)],
    ['UnorderedUpdate', goPointer('v1beta1.UnorderedUpdateStrategy', present(r.unorderedUpdate))],
    ['InPlaceUpdateStrategy', goPointer('pub.InPlaceUpdateStrategy', present(r.inPlaceUpdateStrategy))],
    ['MinReadySeconds', goPointer('int32', present(r.minReadySeconds))],
  ]);
}

/** `v1beta1.StatefulSetUpdateStrategy{Type:"…", RollingUpdate:(*…)(…)}`. */
export function goUpdateStrategy(s: StatefulSetUpdateStrategy | undefined): GoValue {
  return goStruct('v1beta1.StatefulSetUpdateStrategy', [
    ['Type', goString(s?.type)],
    ['RollingUpdate', goPointer('v1beta1.RollingUpdateStatefulSetStrategy', present(s?.rollingUpdate))],
  ]);
}

/** `[]v1.PodReadinessGate{v1.PodReadinessGate{ConditionType:"…"}}`. */
export function goReadinessGates(gates: PodReadinessGate[] | undefined): GoValue {
  return goSlice(
    'v1.PodReadinessGate',
    gates?.map((g) => goStruct('v1.PodReadinessGate', [['ConditionType', goString(g?.conditionType)]]).text),
  );
}

/** `[]intstr.IntOrString{intstr.IntOrString{Type:0, IntVal:1, StrVal:""}, …}`. */
export function goReserveOrdinals(ordinals: (number | string)[]): GoValue {
  return goSlice(
    'intstr.IntOrString',
    ordinals.map((o) => goIntOrString(o).text),
  );
}

/**
 * A volumeClaimTemplate, abridged to its name: Go prints every field of the claim, and pointers as
 * addresses that differ per request, so no text could match upstream's anyway.
 */
export const goClaim = (claim: PersistentVolumeClaim | undefined): GoValue =>
  new GoValue(
    `v1.PersistentVolumeClaim{ObjectMeta:v1.ObjectMeta{Name:${goString(claim?.metadata?.name)}, …}, …}`,
  );

/** The volumeClaimTemplates, each abridged as {@link goClaim}. */
export const goClaims = (claims: PersistentVolumeClaim[] | undefined): GoValue =>
  goSlice(
    'v1.PersistentVolumeClaim',
    claims?.map((c) => goClaim(c).text),
  );
