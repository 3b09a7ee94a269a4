import { selectorMatchesToString } from '../admission/matching.ts';
import { readJsonPath, writeJsonPath } from '../registry/json-path.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { PatchDocument } from './handlers/patch.ts';
import type { RequestScope } from './handlers/scope.ts';

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

/** GET of the `scale` subresource: the Scale view of the object, at the version served. */
export async function getScale(s: RequestScope, obj: KubeObject): Promise<void> {
  s.send(200, toScale(s.type, await s.deps.objects.served(s.type, obj)));
}

/** Writes `spec.replicas` through the main resource and answers with the Scale view. */
async function writeScale(s: RequestScope, patch: (cur: KubeObject) => KubeObject): Promise<void> {
  const { deps, type, info, options } = s;
  const scaled = await deps.objects.update(
    type,
    info.namespace,
    info.name,
    { patch },
    { ...options, subresource: '' },
  );
  s.send(200, toScale(type, scaled));
}

/** PUT of the `scale` subresource: the Scale's `spec.replicas` (and resourceVersion) written back. */
export function updateScale(s: RequestScope, body: KubeObject): Promise<void> {
  return writeScale(s, (cur) => applyScale(s.type, cur, body));
}

/** PATCH of the `scale` subresource: the patch applies to the Scale view, its replicas are written back. */
export function patchScale(s: RequestScope, patchDocument: PatchDocument): Promise<void> {
  return writeScale(s, (cur) => applyScale(s.type, cur, patchDocument(toScale(s.type, cur))));
}
