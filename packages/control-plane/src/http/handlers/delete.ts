import { ApiError } from '../../errors.ts';
import { apiVersionOf, type KubeObject, resourceKey } from '../../registry/types.ts';
import { deleteResult } from '../delete-result.ts';
import { readObjectBody } from '../negotiation.ts';
import { selectionOf, selects } from '../selection.ts';
import { deleteOptionsOf } from '../write-options.ts';
import type { RequestScope } from './scope.ts';

/** DELETE of one object (kube-apiserver's DeleteResource), with the DeleteOptions of its body and query. */
export async function deleteResource(s: RequestScope): Promise<void> {
  const { deps, type, info, query, options } = s;
  const body = await readObjectBody(s.req, {});
  const del = deleteOptionsOf(info.verb, body, query, options);
  return s.send(200, deleteResult(type, await deps.objects.delete(type, info.namespace, info.name, del)));
}

/**
 * DELETE of a collection (kube-apiserver's DeleteCollection): every object the selectors match,
 * answered with the list of those deleted (objects gone meanwhile are skipped).
 */
export async function deleteCollection(s: RequestScope): Promise<void> {
  const { deps, type, info, query, options } = s;
  const selection = selectionOf(type, query);
  const deleted: KubeObject[] = [];
  for (const e of deps.store.list(resourceKey(type.group, type.plural), info.namespace || undefined)) {
    if (!selects(type, selection, e.obj)) continue;
    try {
      deleted.push(
        await deps.objects.delete(type, e.obj.metadata?.namespace ?? '', e.obj.metadata?.name, options),
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  return s.send(200, {
    kind: type.listKind,
    apiVersion: apiVersionOf(type),
    metadata: { resourceVersion: String(deps.store.currentRV) },
    items: deleted,
  });
}
