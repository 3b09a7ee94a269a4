import type { SidecarContainer, SidecarSet } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import {
  hotUpgradeNames,
  isHotUpgrade,
  isNativeSidecar,
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  SIDECARSET_INJECTED_LIST_ANNOTATION,
  SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION,
  sidecarSetHash,
  sidecarSetHashWithoutImage,
  versionAnnotation,
  writePodSidecarSetHash,
} from '../../packages/manager/src/workload/sidecarset/index.ts';

/** The SidecarSet with its hash annotations stamped, as its mutating webhook does. */
export function stampedSidecarSet<T extends SidecarSet>(ss: T): T {
  return {
    ...ss,
    metadata: {
      ...ss.metadata,
      annotations: {
        ...ss.metadata?.annotations,
        [SIDECARSET_HASH_ANNOTATION]: sidecarSetHash(ss),
        [SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION]: sidecarSetHashWithoutImage(ss),
      },
    },
  };
}

/**
 * A pod as the injection webhook leaves it, from the stored SidecarSet: `app` containers plus its
 * sidecars (each hot one as `-1` working and `-2` at the empty image, each given `extra`), native
 * sidecars as init containers, the hash annotations and the injected list.
 */
export function injectedPod(
  stored: SidecarSet,
  pod: KubeObject,
  extra: Record<string, unknown> = {},
): KubeObject {
  const annotations: Record<string, string> = {
    ...pod.metadata?.annotations,
    [SIDECARSET_INJECTED_LIST_ANNOTATION]: stored.metadata?.name ?? '',
  };
  writePodSidecarSetHash(annotations, stored, { withoutImage: true });
  const containers: Partial<SidecarContainer>[] = [...(pod.spec?.containers ?? [])];
  const working: Record<string, string> = {};
  for (const s of stored.spec?.containers ?? []) {
    if (!isHotUpgrade(s)) {
      containers.push({ ...extra, name: s.name, image: s.image });
      continue;
    }
    const [one, two] = hotUpgradeNames(s.name);
    containers.push(
      { ...extra, name: one, image: s.image },
      { ...extra, name: two, image: s.upgradeStrategy?.hotUpgradeEmptyImage },
    );
    working[s.name] = one;
    annotations[versionAnnotation(one)] = stored.metadata?.resourceVersion ?? '';
    annotations[versionAnnotation(two)] = '0';
  }
  if (Object.keys(working).length)
    annotations[SIDECARSET_WORKING_HOTUPGRADE_CONTAINER_ANNOTATION] = JSON.stringify(working);
  const natives = (stored.spec?.initContainers ?? [])
    .filter(isNativeSidecar)
    .map((c) => ({ ...extra, name: c.name, image: c.image, restartPolicy: 'Always' }));
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations },
    spec: {
      ...pod.spec,
      containers,
      ...(natives.length ? { initContainers: [...natives, ...(pod.spec?.initContainers ?? [])] } : {}),
    },
  };
}
