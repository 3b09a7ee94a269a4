import { badRequest, methodNotAllowed, unsupportedMediaType } from '../../errors.ts';
import { applyJsonPatch } from '../../patch/json-patch.ts';
import { applyMergePatch } from '../../patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../../patch/strategic-merge.ts';
import type { KubeObject } from '../../registry/types.ts';
import { forceNotAllowed, serveApply } from '../apply.ts';
import { parseJson, readBody } from '../body.ts';
import { APPLY_PATCH, mediaTypeOf, patchTypesOf } from '../negotiation.ts';
import { patchScale } from '../scale.ts';
import type { RequestScope } from './scope.ts';

/** A patch of one of the patch media types, as a function of the object it applies to. */
export type PatchDocument = (cur: KubeObject) => KubeObject;

/**
 * PATCH (kube-apiserver's PatchResource): a JSON, merge or strategic merge patch, or a
 * server-side apply; the `scale` subresource is patched by its own handler.
 */
export async function patchResource(s: RequestScope): Promise<void> {
  const { deps, req, type, info, query, options } = s;
  if (!info.name) throw methodNotAllowed('PATCH');
  const patchType = mediaTypeOf(req);
  const patchTypes = patchTypesOf(type);
  if (!patchTypes.includes(patchType)) throw unsupportedMediaType(patchTypes);
  if (patchType === APPLY_PATCH) {
    const applied = await serveApply(deps.objects, type, info, query, req, options);
    return s.send(applied.code, applied.obj);
  }
  const force = forceNotAllowed(query);
  if (force) throw force;
  const patch = parseJson(await readBody(req));
  if (
    patchType !== 'application/json-patch+json' &&
    (patch === null || typeof patch !== 'object' || Array.isArray(patch))
  ) {
    throw badRequest('the patch must be a JSON object');
  }
  const patchDocument: PatchDocument = (cur) => {
    if (patchType === 'application/json-patch+json') return applyJsonPatch(cur, patch) as KubeObject;
    if (patchType === 'application/merge-patch+json') return applyMergePatch(cur, patch) as KubeObject;
    return applyStrategicMergePatch(cur, patch);
  };
  if (info.subresource === 'scale') return patchScale(s, patchDocument);
  return s.send(
    200,
    await deps.objects.update(type, info.namespace, info.name, { patch: patchDocument }, options),
  );
}
