import {
  KRUISE_IGNORE_CONTAINER_EXIT_CODE_ENV,
  KRUISE_TERMINATE_SIDECAR_ENV,
  KRUISE_TERMINATE_SIDECAR_WITH_IMAGE_ENV,
} from '@kruise/api';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';

/** Whether the container has the env var `name` set to `true` (any case, as Go's EqualFold). */
const envTrue = (c: Container, name: string) =>
  (c.env ?? []).some((e) => e?.name === name && String(e.value ?? '').toLowerCase() === 'true');

/** The quick-exit image of a virtual-kubelet sidecar (`KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT_WITH_IMAGE`), or ''. */
export function quickExitImage(c: Container): string {
  return (c.env ?? []).find((e) => e?.name === KRUISE_TERMINATE_SIDECAR_WITH_IMAGE_ENV)?.value ?? '';
}

/** A sidecar stopped through a ContainerRecreateRequest (`KRUISE_TERMINATE_SIDECAR_WHEN_JOB_EXIT=true`). */
const isNormalSidecar = (c: Container) => envTrue(c, KRUISE_TERMINATE_SIDECAR_ENV);
/** A normal sidecar whose exit code does not decide the pod's phase. */
const isIgnoreExitCodeSidecar = (c: Container) =>
  isNormalSidecar(c) && envTrue(c, KRUISE_IGNORE_CONTAINER_EXIT_CODE_ENV);
/** A sidecar stopped on virtual-kubelet nodes by replacing its image. */
const isInPlaceUpdateSidecar = (c: Container) => quickExitImage(c) !== '';

/**
 * Whether a container is a sidecar to SidecarTerminator. Only `spec.containers` count, as upstream:
 * native sidecars (init containers with `restartPolicy: Always`) are stopped by kubelet itself.
 */
export const isSidecar = (c: Container) => isNormalSidecar(c) || isInPlaceUpdateSidecar(c);

/** The pod's main and sidecar container names. */
export function mainAndSidecars(pod: Pod): { main: Set<string>; sidecars: Set<string> } {
  const main = new Set<string>();
  const sidecars = new Set<string>();
  for (const c of pod.spec?.containers ?? []) (isSidecar(c) ? sidecars : main).add(c.name);
  return { main, sidecars };
}

/** The sidecars by how they are stopped on this pod's node (upstream's getSidecarContainerNames). */
export interface SidecarsByAction {
  /** Killed through the `sidecar-termination-<podUID>` ContainerRecreateRequest. */
  normal: Set<string>;
  /** Killed through the request after the pod's phase is written from its main containers. */
  ignoreExitCode: Set<string>;
  /** Virtual kubelet: their image replaced by the quick-exit one. */
  inPlaceUpdate: Set<string>;
}

/** Sorts the pod's sidecars by the action that stops them; `virtualKubelet`: the pod's node is one. */
export function sidecarsByAction(pod: Pod, virtualKubelet: boolean): SidecarsByAction {
  const out: SidecarsByAction = { normal: new Set(), ignoreExitCode: new Set(), inPlaceUpdate: new Set() };
  for (const c of pod.spec?.containers ?? []) {
    if (virtualKubelet) {
      if (isInPlaceUpdateSidecar(c)) out.inPlaceUpdate.add(c.name);
    } else if (isIgnoreExitCodeSidecar(c)) out.ignoreExitCode.add(c.name);
    else if (isNormalSidecar(c)) out.normal.add(c.name);
  }
  return out;
}

/** Whether every named container has terminated (false until each container has a status, as upstream). */
export function containersCompleted(pod: Pod, names: Set<string>): boolean {
  return everyStatus(pod, names, (exitCode) => exitCode !== undefined);
}

/** Whether every named container has terminated with exit code 0 (false until each has a status). */
export function containersSucceeded(pod: Pod, names: Set<string>): boolean {
  return everyStatus(pod, names, (exitCode) => exitCode === 0);
}

/** Whether `ok` holds for the terminated exit code (undefined: not terminated) of each named container. */
function everyStatus(pod: Pod, names: Set<string>, ok: (exitCode: number | undefined) => boolean): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  if ((pod.spec?.containers ?? []).length !== statuses.length) return false;
  return statuses.every((s) => !names.has(s.name) || ok(s.state?.terminated?.exitCode));
}

/** The named sidecars that have not terminated yet, sorted. */
export function uncompleted(pod: Pod, names: Set<string>): string[] {
  const done = new Set(
    (pod.status?.containerStatuses ?? []).filter((s) => s.state?.terminated).map((s) => s.name),
  );
  return [...names].filter((n) => !done.has(n)).sort();
}

/**
 * Whether SidecarTerminator acts on the pod (upstream's isInterestingPod): restartPolicy Never or
 * OnFailure, not Pending, not being deleted, some sidecar not terminated, and its main containers
 * done — all terminated (Never) or all succeeded (OnFailure).
 */
export function needsSidecarsStopped(pod: Pod): boolean {
  const policy = pod.spec?.restartPolicy ?? 'Always';
  if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Pending' || policy === 'Always') return false;
  const { main, sidecars } = mainAndSidecars(pod);
  if (sidecars.size === 0 || containersCompleted(pod, sidecars)) return false;
  if (policy === 'Never') return containersCompleted(pod, main);
  if (policy === 'OnFailure') return containersSucceeded(pod, main);
  return false;
}
