import { badRequest } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { WriteOptions } from './context.ts';
import type { ObjectService } from './objects.ts';

/** The kind a pod subresource POST takes (v1 Binding, policy/v1 Eviction). */
export interface SubresourceKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * The body of a POST to `pods/<subresource>` as kube-apiserver's handler decodes it: a JSON object
 * (else 400), typed as `kind`, its `metadata.name` (when set) equal to the URL's (else 400), and
 * the URL's name and namespace filled in. The caller's body is not modified.
 */
export function subresourceBody(
  body: KubeObject,
  kind: SubresourceKind,
  namespace: string,
  name: string,
): KubeObject {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest(`the body of the request must be a JSON object of kind ${kind.kind}`);
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  const object: KubeObject = { ...body, apiVersion, kind: kind.kind, metadata: { ...body.metadata } };
  if (object.metadata!.name && object.metadata!.name !== name)
    throw badRequest(`name in URL does not match name in ${kind.kind} object`);
  object.metadata!.name = name;
  object.metadata!.namespace = namespace;
  return object;
}

/** Mutating then validating admission of a `pods/<subresource>` CREATE carrying `object` of `kind`. */
export async function admitSubresourceCreate(
  objects: ObjectService,
  podType: ResourceType,
  subresource: string,
  object: KubeObject,
  kind: SubresourceKind,
  options: WriteOptions,
): Promise<void> {
  const { namespace = '', name = '' } = object.metadata ?? {};
  for (const phase of ['mutating', 'validating'] as const) {
    await objects.admission?.({
      type: podType,
      operation: 'CREATE',
      subresource,
      namespace,
      name,
      object,
      oldObject: undefined,
      options: { ...options, subresource },
      phase,
      kind,
    });
  }
}
