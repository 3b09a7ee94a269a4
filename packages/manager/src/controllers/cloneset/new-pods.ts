import type { CloneSet } from '@kruise/api';
import { kubeTime } from '@kruise/kube-compat';
import type { PersistentVolumeClaim, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { injectInPlaceUpdateGate } from '../../workload/inplaceupdate/readiness.ts';
import { LIFECYCLE_STATE_LABEL, LIFECYCLE_TIMESTAMP_ANNOTATION } from '../../workload/lifecycle/state.ts';
import { injectKruisePodReadyGate } from '../../workload/podreadiness/readiness-gate.ts';
import { controllerRef } from '../../workload/revision/history.ts';
import { writeRevisionHash } from '../../workload/revision/pod-revision.ts';
import { INSTANCE_ID_LABEL } from './scale-plan.ts';

/** The CloneSet's controller reference (controller and blockOwnerDeletion true). */
export function cloneSetRef(cs: CloneSet): OwnerReference {
  return controllerRef({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: cs.metadata?.name ?? '', uid: cs.metadata?.uid ?? '' },
  });
}

/**
 * The PVCs a pod of instance `id` uses, by volumeClaimTemplate name (upstream's
 * GetPersistentVolumeClaims): named `<template>-<cloneset>-<id>`, labelled with the selector's
 * matchLabels and the instance id, owned by the CloneSet.
 */
export function claimsFor(cs: CloneSet, id: string): Map<string, PersistentVolumeClaim> {
  const out = new Map<string, PersistentVolumeClaim>();
  for (const t of cs.spec?.volumeClaimTemplates ?? []) {
    const claim = structuredClone(t) as PersistentVolumeClaim;
    const template = t.metadata?.name ?? '';
    claim.metadata = {
      ...claim.metadata,
      name: `${template}-${cs.metadata?.name}-${id}`,
      namespace: cs.metadata?.namespace,
      labels: {
        ...(claim.metadata?.labels ?? {}),
        ...(cs.spec?.selector?.matchLabels ?? {}),
        [INSTANCE_ID_LABEL]: id,
      },
      ownerReferences: [...(claim.metadata?.ownerReferences ?? []), cloneSetRef(cs)],
    };
    delete (claim as { status?: unknown }).status;
    out.set(template, claim);
  }
  return out;
}

/** Puts one PVC volume per volumeClaimTemplate into the pod, replacing same-named template volumes. Mutates `pod`. */
function attachClaims(cs: CloneSet, pod: Pod, id: string): void {
  const claims = claimsFor(cs, id);
  if (!claims.size) return;
  const volumes: Volume[] = [...claims].map(([name, claim]) => ({
    name,
    persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' },
  }));
  for (const v of pod.spec?.volumes ?? []) if (!claims.has(v.name)) volumes.push(v);
  pod.spec!.volumes = volumes;
}

/** How new pods are written: gate CloneSetShortHash, and the time stamped on their lifecycle state. */
export interface NewPodOptions {
  shortHash: boolean;
  now: number;
  /**
   * The pod webhook is on (gate PodWebhook): it adds the KruisePodReady readiness gate to every pod of
   * a Kruise workload, after the others. The pod is created with it already in that place, so the
   * webhook has nothing to change (no patch for the API server to apply on each create).
   */
  podReadyGate?: boolean;
}

/**
 * A new pod of the CloneSet `cs` (the current or the update revision's copy of it) at `revision`
 * (upstream's newVersionedPods): the template's labels, annotations, finalizers and spec, the
 * revision labels, name `<cloneset>-<id>`, the instance id, the InPlaceUpdateReady readiness gate,
 * the claims' volumes and lifecycle state PreparingNormal.
 */
export function newPod(cs: CloneSet, revision: string, id: string, opts: NewPodOptions): Pod {
  const t = structuredClone(cs.spec?.template ?? {});
  const labels = { ...(t.metadata?.labels ?? {}) };
  writeRevisionHash(labels, revision, opts.shortHash);
  labels[INSTANCE_ID_LABEL] = id;
  labels[LIFECYCLE_STATE_LABEL] = 'PreparingNormal';
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${cs.metadata?.name}-${id}`,
      namespace: cs.metadata?.namespace,
      labels,
      annotations: {
        ...(t.metadata?.annotations ?? {}),
        [LIFECYCLE_TIMESTAMP_ANNOTATION]: kubeTime(opts.now),
      },
      ...(t.metadata?.finalizers?.length ? { finalizers: [...t.metadata.finalizers] } : {}),
      ownerReferences: [cloneSetRef(cs)],
    },
    spec: t.spec ?? { containers: [] },
  };
  injectInPlaceUpdateGate(pod);
  if (opts.podReadyGate) injectKruisePodReadyGate(pod, true);
  attachClaims(cs, pod, id);
  return pod;
}

/**
 * The pods to create (upstream's NewVersionedPods): `currentCount` at the current revision first
 * (capped at `total`), the rest at the update revision, each taking the next id.
 */
export function newVersionedPods(
  current: { cs: CloneSet; revision: string },
  update: { cs: CloneSet; revision: string },
  total: number,
  currentCount: number,
  ids: string[],
  opts: NewPodOptions,
): Pod[] {
  const fromCurrent = Math.min(total, currentCount);
  const out: Pod[] = [];
  for (let i = 0; i < total && i < ids.length; i++) {
    const at = i < fromCurrent ? current : update;
    out.push(newPod(at.cs, at.revision, ids[i]!, opts));
  }
  return out;
}
