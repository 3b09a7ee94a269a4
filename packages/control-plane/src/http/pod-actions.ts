import type { WriteOptions } from '../api/context.ts';
import { evictPod } from '../api/eviction.ts';
import { bindPod, CREATED_STATUS } from '../api/pod-binding.ts';
import { methodNotAllowed } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { HandlerDeps } from './deps.ts';
import type { RequestInfo } from './request-info.ts';

/** POST to a pod's `binding` or `eviction` subresource: answers kube-apiserver's 201 Status. */
export async function postPodSubresource(
  deps: HandlerDeps,
  type: ResourceType,
  info: RequestInfo,
  body: KubeObject,
  options: WriteOptions,
): Promise<KubeObject> {
  if (type.plural !== 'pods' || type.group !== '') throw methodNotAllowed('POST');
  if (info.subresource === 'binding') {
    await bindPod(deps.store, deps.objects, type, info.namespace, info.name, body, options);
    return CREATED_STATUS;
  }
  if (info.subresource === 'eviction') {
    const pdbType = deps.registry.byResource('policy', 'poddisruptionbudgets')!;
    await evictPod(deps.store, deps.objects, type, pdbType, info.namespace, info.name, body, options);
    return CREATED_STATUS;
  }
  throw methodNotAllowed('POST');
}
