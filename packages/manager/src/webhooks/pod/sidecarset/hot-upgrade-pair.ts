import type { SidecarContainer } from '@kruise/api';
import type { EnvVar } from 'kubernetes-types/core/v1.js';
import { hotUpgradeNames } from '../../../workload/sidecarset/hot-upgrade.ts';
import {
  SIDECARSET_VERSION_ALT_ENV,
  SIDECARSET_VERSION_ENV,
  versionAltAnnotation,
  versionAnnotation,
} from '../../../workload/sidecarset/keys.ts';

/** `SIDECARSET_VERSION` and `SIDECARSET_VERSION_ALT` of copy `name`, from its version annotations. */
const versionEnvs = (name: string): EnvVar[] => [
  {
    name: SIDECARSET_VERSION_ENV,
    valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${versionAnnotation(name)}']` } },
  },
  {
    name: SIDECARSET_VERSION_ALT_ENV,
    valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${versionAltAnnotation(name)}']` } },
  },
];

/**
 * A hot-upgrade sidecar `x` as injected (upstream's injectHotUpgradeContainers): `x-1` working with
 * the sidecar's image, `x-2` with `hotUpgradeEmptyImage`, each with its version env vars; the
 * annotations: versions 1 / alt 0 for `x-1`, 0 / alt 1 for `x-2`, and `x-1` recorded as working
 * in `working` (the pod's map of working copies, changed in place).
 */
export function hotUpgradePair(
  sidecar: SidecarContainer,
  working: Record<string, string>,
): { containers: SidecarContainer[]; annotations: Record<string, string> } {
  const [one, two] = hotUpgradeNames(sidecar.name);
  const copy = (name: string, image: string | undefined): SidecarContainer => ({
    ...structuredClone(sidecar),
    name,
    image,
    env: [...(sidecar.env ?? []), ...versionEnvs(name)],
  });
  working[sidecar.name] = one;
  return {
    containers: [copy(one, sidecar.image), copy(two, sidecar.upgradeStrategy?.hotUpgradeEmptyImage)],
    annotations: {
      [versionAnnotation(one)]: '1',
      [versionAltAnnotation(one)]: '0',
      [versionAnnotation(two)]: '0',
      [versionAltAnnotation(two)]: '1',
    },
  };
}
