import { methodNotAllowed } from '../../errors.ts';
import { readObjectBody } from '../negotiation.ts';
import { updateScale } from '../scale.ts';
import type { RequestScope } from './scope.ts';

/**
 * PUT (kube-apiserver's UpdateResource): replaces the object, or what its subresource (status,
 * resize, finalize) writes; the `scale` subresource is served by its own handler.
 */
export async function updateResource(s: RequestScope): Promise<void> {
  const { deps, type, info, options } = s;
  if (!info.name) throw methodNotAllowed('PUT');
  const body = await readObjectBody(s.req);
  if (info.subresource === 'scale') return updateScale(s, body);
  return s.send(200, await deps.objects.update(type, info.namespace, info.name, { body }, options));
}
