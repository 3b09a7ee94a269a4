import type { SidecarContainer } from '@kruise/api';
import type { Container, EnvVar, Pod, Volume, VolumeDevice, VolumeMount } from 'kubernetes-types/core/v1.js';
import { SIDECAR_INJECTED_ENV } from '../../../workload/sidecarset/keys.ts';
import { appendNew, orNone } from './append-new.ts';

const SUBPATH_EXPR_ENV = /\$\(([-._a-zA-Z][-._a-zA-Z0-9]*)\)/g;

/** Whether a pod container was itself injected by a SidecarSet (`IS_INJECTED=true`). */
const isInjected = (c: Container) => c.env?.find((e) => e.name === SIDECAR_INJECTED_ENV)?.value === 'true';

/**
 * The app containers' volume mounts a sidecar with `shareVolumePolicy: enabled` receives, and the
 * env vars their `subPathExpr` reference (upstream's GetInjectedVolumeMountsAndEnvs).
 */
export function sharedMountsAndEnvs(
  sidecar: SidecarContainer,
  pod: Pod,
): { mounts: VolumeMount[]; envs: EnvVar[] } {
  const mounts: VolumeMount[] = [];
  const envs: EnvVar[] = [];
  if (sidecar.shareVolumePolicy?.type !== 'enabled') return { mounts, envs };
  for (const app of pod.spec?.containers ?? []) {
    if (isInjected(app)) continue;
    for (const mount of app.volumeMounts ?? []) {
      mounts.push(mount);
      for (const m of (mount.subPathExpr ?? '').matchAll(SUBPATH_EXPR_ENV)) {
        const env = app.env?.find((e) => e.name === m[1]);
        if (env) envs.push(env);
      }
    }
  }
  return { mounts, envs };
}

/** The app containers' volume devices a sidecar with `shareVolumeDevicePolicy: enabled` receives. */
export function sharedDevices(sidecar: SidecarContainer, pod: Pod): VolumeDevice[] {
  if (sidecar.shareVolumeDevicePolicy?.type !== 'enabled') return [];
  return (pod.spec?.containers ?? []).filter((c) => !isInjected(c)).flatMap((c) => c.volumeDevices ?? []);
}

/** util.MergeVolumeMounts: the container's mounts, then those at a path it does not use yet. */
export function mergeVolumeMounts(
  container: Container,
  additional: VolumeMount[],
): VolumeMount[] | undefined {
  const mount = (m: VolumeMount) => m.mountPath;
  const taken = [
    ...(container.volumeMounts ?? []).map(mount),
    ...(container.volumeDevices ?? []).map(device),
  ];
  return orNone(appendNew(container.volumeMounts, additional, mount, taken));
}

const device = (d: VolumeDevice) => d.devicePath;

/** util.MergeVolumeDevices: the container's devices, then those at a path it does not use yet. */
export function mergeVolumeDevices(
  container: Container,
  additional: VolumeDevice[],
): VolumeDevice[] | undefined {
  const taken = [
    ...(container.volumeDevices ?? []).map(device),
    ...(container.volumeMounts ?? []).map((m) => m.mountPath),
  ];
  return orNone(appendNew(container.volumeDevices, additional, device, taken));
}

/** The SidecarSet volumes a sidecar mounts or attaches as a device (missing ones are skipped). */
export function volumesUsedBy(sidecar: Container, volumes: Volume[] | undefined): Volume[] {
  const byName = new Map((volumes ?? []).map((v) => [v.name, v]));
  return [...(sidecar.volumeMounts ?? []), ...(sidecar.volumeDevices ?? [])]
    .map((m) => byName.get(m.name))
    .filter((v): v is Volume => v !== undefined);
}
