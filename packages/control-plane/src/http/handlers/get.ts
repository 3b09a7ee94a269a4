import { CrdConverter } from '../../crd/conversion.ts';
import { methodNotAllowed } from '../../errors.ts';
import { apiVersionOf } from '../../registry/types.ts';
import { streamPodLog } from '../pod-log.ts';
import { getScale } from '../scale.ts';
import { toTable, wantsTable } from '../table.ts';
import type { RequestScope } from './scope.ts';

/**
 * GET of one object (kube-apiserver's GetResource): as a Table when asked, converted to the
 * version requested; its `scale` and `log` subresources are served by their own handlers.
 */
export async function getResource(s: RequestScope): Promise<void> {
  const { deps, type, info, query } = s;
  if (info.subresource === 'token') throw methodNotAllowed('GET');
  const e = deps.objects.getEntry(type, info.namespace, info.name);
  if (info.subresource === 'scale') return getScale(s, e.obj);
  if (info.subresource === 'log')
    return streamPodLog(s.res, e.obj, query, (name) => {
      const nodes = deps.registry.lookup('', 'v1', 'nodes')!;
      return deps.objects.getEntry(nodes, '', name).obj;
    });
  if (wantsTable(s.req.headers.accept))
    return s.send(200, toTable(type, [e.obj], { resourceVersion: String(e.rv) }, query.get('includeObject')));
  if (CrdConverter.converts(type) && e.obj.apiVersion !== apiVersionOf(type))
    return s.send(200, await deps.objects.served(type, e.obj));
  return s.send(200, e.obj, e.json);
}
