import type { IncomingMessage } from 'node:http';
import type { WriteOptions } from '../api/context.ts';
import type { ObjectService } from '../api/objects.ts';
import { ApiError, badRequest, invalid } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import { applyConfiguration, fieldManagerRequired } from '../ssa/field-manager.ts';
import { readBody } from './body.ts';
import { parseYamlBody } from './negotiation.ts';
import type { RequestInfo } from './request-info.ts';

/** kube-apiserver's 422 for `force` on a patch that is not an apply. */
export function forceNotAllowed(query: URLSearchParams): ApiError | undefined {
  if (!query.has('force')) return undefined;
  return invalid('PatchOptions', 'meta.k8s.io', '', [
    {
      reason: 'FieldValueForbidden',
      field: 'force',
      message: 'Forbidden: may not be specified for non-apply patch',
    },
  ]);
}

/**
 * Serves a server-side apply (`application/apply-patch+yaml`): patches the object, or creates it
 * when it does not exist (201). Needs `?fieldManager=`; `?force=true` takes conflicting fields over.
 */
export async function serveApply(
  objects: ObjectService,
  type: ResourceType,
  info: RequestInfo,
  query: URLSearchParams,
  req: IncomingMessage,
  options: WriteOptions,
): Promise<{ code: number; obj: KubeObject }> {
  const manager = query.get('fieldManager') ?? '';
  if (!manager) throw fieldManagerRequired();
  const config = parseYamlBody(await readBody(req));
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw badRequest('the apply configuration must be an object');
  const request = { manager, force: query.get('force') === 'true', subresource: info.subresource };
  const opts = { ...options, apply: true };
  try {
    const obj = await objects.update(
      type,
      info.namespace,
      info.name,
      { patch: (cur) => applyConfiguration(type, cur, config, request) },
      opts,
    );
    return { code: 200, obj };
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404 && !info.subresource)) throw err;
  }
  const meta = config.metadata ?? {};
  if (meta.name !== undefined && meta.name !== info.name) {
    throw badRequest(
      `the name of the object (${meta.name}) does not match the name on the URL (${info.name})`,
    );
  }
  const created = applyConfiguration(
    type,
    undefined,
    { ...config, metadata: { ...meta, name: info.name } },
    request,
  );
  return { code: 201, obj: await objects.create(type, info.namespace, created, opts) };
}
