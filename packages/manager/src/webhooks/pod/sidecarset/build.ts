import type { SidecarContainer, SidecarSet } from '@kruise/api';
import type { LocalObjectReference, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { workingHotUpgradeContainers } from '../../../workload/sidecarset/hot-upgrade.ts';
import { SIDECAR_INJECTED_ENV } from '../../../workload/sidecarset/keys.ts';
import { isHotUpgrade, isNativeSidecar } from '../../../workload/sidecarset/native.ts';
import { hotUpgradePair } from './hot-upgrade-pair.ts';
import { applyResourcesPolicy } from './resources-policy.ts';
import {
  mergeVolumeDevices,
  mergeVolumeMounts,
  sharedDevices,
  sharedMountsAndEnvs,
  volumesUsedBy,
} from './shared-volumes.ts';
import { mergeEnvVars, transferredEnvs } from './transfer-env.ts';

/** What the matched SidecarSets add to a new pod (upstream's buildSidecars on CREATE). */
export interface BuiltSidecars {
  containers: SidecarContainer[];
  initContainers: SidecarContainer[];
  imagePullSecrets: LocalObjectReference[];
  volumes: Volume[];
  /** Hot-upgrade version annotations (each pair's). */
  annotations: Record<string, string>;
  /** The pod's working hot-upgrade copies, the new pairs' included (`{"envoy":"envoy-1"}`). */
  working: Record<string, string>;
  /** The SidecarSets that injected at least one container (their hash entries are written). */
  injecting: SidecarSet[];
}

/**
 * One sidecar as it goes into the pod: its resources from its policy, the app containers' mounts
 * and devices when shared, `IS_INJECTED=true`, the transferred env vars (and those the shared
 * mounts' `subPathExpr` use); the volumes of the SidecarSet it uses are added to `volumes`.
 */
function prepare(
  sidecar: SidecarContainer,
  sidecarSet: SidecarSet,
  pod: Pod,
  matched: SidecarSet[],
  volumes: Volume[],
) {
  const c = structuredClone(applyResourcesPolicy(pod, sidecar, matched));
  const shared = sharedMountsAndEnvs(c, pod);
  const transfer = mergeEnvVars(transferredEnvs(c, pod), shared.envs);
  volumes.push(...volumesUsedBy(c, sidecarSet.spec?.volumes));
  const mounts = mergeVolumeMounts(c, shared.mounts);
  if (mounts) c.volumeMounts = mounts;
  c.env = mergeEnvVars([...(c.env ?? []), { name: SIDECAR_INJECTED_ENV, value: 'true' }], transfer);
  const devices = mergeVolumeDevices(c, sharedDevices(c, pod));
  if (devices) c.volumeDevices = devices;
  return c;
}

/**
 * Builds the sidecars of every matched SidecarSet for a pod being created: init containers (a
 * native hot-upgrade one as its pair) and their imagePullSecrets, containers (hot-upgrade ones as
 * their `-1`/`-2` pair), the volumes they use and the hot-upgrade annotations. Nothing of the pod
 * is changed.
 * @throws Error when a resources policy cannot be applied (upstream's words).
 */
export function buildSidecars(pod: Pod, matched: SidecarSet[]): BuiltSidecars {
  const out: BuiltSidecars = {
    containers: [],
    initContainers: [],
    imagePullSecrets: [],
    volumes: [],
    annotations: {},
    working: workingHotUpgradeContainers(pod),
    injecting: [],
  };
  const add = (list: SidecarContainer[], c: SidecarContainer, hot: boolean) => {
    if (!hot) {
      list.push(c);
      return;
    }
    const pair = hotUpgradePair(c, out.working);
    list.push(...pair.containers);
    Object.assign(out.annotations, pair.annotations);
  };
  for (const sidecarSet of matched) {
    const spec = sidecarSet.spec ?? {};
    for (const init of spec.initContainers ?? []) {
      const c = prepare(init, sidecarSet, pod, matched, out.volumes);
      add(out.initContainers, c, isNativeSidecar(c) && isHotUpgrade(c));
    }
    out.imagePullSecrets.push(...(spec.imagePullSecrets ?? []));
    for (const container of spec.containers ?? []) {
      const c = prepare(container, sidecarSet, pod, matched, out.volumes);
      add(out.containers, c, isHotUpgrade(c));
    }
    if ((spec.initContainers?.length ?? 0) + (spec.containers?.length ?? 0) > 0)
      out.injecting.push(sidecarSet);
  }
  return out;
}
