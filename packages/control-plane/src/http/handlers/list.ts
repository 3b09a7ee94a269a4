import { CrdConverter } from '../../crd/conversion.ts';
import { ApiError, badRequest, continueExpired, gone } from '../../errors.ts';
import { apiVersionOf, resourceKey } from '../../registry/types.ts';
import type { Entry } from '../../store/store.ts';
import { prefersProtobuf, sendObject } from '../negotiation.ts';
import { sendJson } from '../respond.ts';
import { selectionOf, selects } from '../selection.ts';
import { toTable, wantsTable } from '../table.ts';
import type { RequestScope } from './scope.ts';

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (typeof parsed.start !== 'string' || typeof parsed.rv !== 'number') throw new Error('bad');
    return parsed;
  } catch {
    throw badRequest('continue key is not valid: invalid continue token');
  }
}

/**
 * LIST (kube-apiserver's ListResource): selectors, `resourceVersion` / `resourceVersionMatch`,
 * pages (`limit`, `continue`, read from the first page's snapshot), conversion to the version
 * requested, and the answer as JSON, protobuf or a Table.
 */
export async function listResources(s: RequestScope): Promise<void> {
  const { deps, req, res, type, info, query } = s;
  const { store } = deps;
  const selection = selectionOf(type, query);
  const rvParam = query.get('resourceVersion');
  if (rvParam && rvParam !== '0' && Number(rvParam) > store.currentRV) {
    throw new ApiError(
      504,
      'Timeout',
      `Too large resource version: ${rvParam}, current: ${store.currentRV}`,
      {
        retryAfterSeconds: 1,
      },
    );
  }
  if (rvParam && query.get('resourceVersionMatch') === 'Exact' && Number(rvParam) !== store.currentRV) {
    throw gone(`too old resource version: ${rvParam} (${store.currentRV})`);
  }
  const limit = Number(query.get('limit') ?? 0);
  const token = query.get('continue');
  const continued = token ? decodeContinue(token) : undefined;
  const start = continued?.start ?? '';
  const resource = resourceKey(type.group, type.plural);
  // Later pages are read from the snapshot the first page was (kube-apiserver reads etcd at its revision).
  let snapshotRV = store.currentRV;
  let entries = store.list(resource, info.namespace || undefined);
  if (continued && continued.rv > 0) {
    const at = store.listAt(resource, info.namespace || undefined, continued.rv);
    if (!at) throw continueExpired(encodeContinue(-1, start));
    entries = at;
    snapshotRV = continued.rv;
  }
  const page: Entry[] = [];
  let next = '';
  let remaining = 0;
  const table = wantsTable(req.headers.accept);
  const proto = !table && prefersProtobuf(req.headers.accept);
  for (const e of entries) {
    const key = `${e.obj.metadata?.namespace ?? ''}/${e.obj.metadata?.name}`;
    if (start && key <= start) continue;
    if (!selects(type, selection, e.obj)) continue;
    if (limit > 0 && page.length >= limit) {
      remaining++;
      continue;
    }
    page.push(e);
    if (limit > 0 && page.length === limit) next = key;
  }
  let objects = page.map((e) => e.obj);
  let items = page.map((e) => e.json);
  if (CrdConverter.converts(type) && objects.some((o) => o.apiVersion !== apiVersionOf(type))) {
    objects = await deps.objects.converter.convert(type, objects, apiVersionOf(type));
    items = objects.map((o) => JSON.stringify(o));
  }
  const rv = String(snapshotRV);
  const metadata: Record<string, unknown> = { resourceVersion: rv };
  if (remaining > 0) {
    metadata.continue = encodeContinue(snapshotRV, next);
    metadata.remainingItemCount = remaining;
  }
  if (table) return sendJson(res, 200, toTable(type, objects, metadata, query.get('includeObject')));
  if (proto) {
    const list = { kind: type.listKind, apiVersion: apiVersionOf(type), metadata, items: objects };
    return sendObject(res, 200, list, req.headers.accept);
  }
  const head = `{"kind":"${type.listKind}","apiVersion":"${apiVersionOf(type)}","metadata":${JSON.stringify(metadata)},"items":[`;
  sendJson(res, 200, undefined, `${head}${items.join(',')}]}`);
}
