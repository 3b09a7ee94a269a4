import { selectorMatchesToString } from '../admission/matching.ts';
import { readJsonPath, writeJsonPath } from '../registry/json-path.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';

/** Where a resource keeps its replica counts and selector. */
function scalePaths(type: ResourceType) {
  return (
    type.scale ?? {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: undefined,
    }
  );
}

/** The autoscaling/v1 Scale view of an object. */
export function toScale(type: ResourceType, obj: KubeObject): KubeObject {
  const paths = scalePaths(type);
  const selector = paths.labelSelectorPath
    ? readJsonPath(obj, paths.labelSelectorPath)
    : obj.spec?.selector
      ? selectorMatchesToString(obj.spec.selector)
      : undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: obj.metadata?.name,
      namespace: obj.metadata?.namespace,
      uid: obj.metadata?.uid,
      resourceVersion: obj.metadata?.resourceVersion,
      creationTimestamp: obj.metadata?.creationTimestamp,
    },
    spec: { replicas: Number(readJsonPath(obj, paths.specReplicasPath) ?? 0) },
    status: {
      replicas: Number(readJsonPath(obj, paths.statusReplicasPath) ?? 0),
      ...(selector ? { selector } : {}),
    },
  };
}

/** Writes a Scale's `spec.replicas` back into the object. */
export function applyScale(type: ResourceType, obj: KubeObject, scale: KubeObject): KubeObject {
  writeJsonPath(obj, scalePaths(type).specReplicasPath, scale.spec?.replicas ?? 0);
  if (scale.metadata?.resourceVersion)
    obj.metadata = { ...obj.metadata, resourceVersion: scale.metadata.resourceVersion };
  return obj;
}
