import { CrdConverter } from '../../crd/conversion.ts';
import { badRequest, gone } from '../../errors.ts';
import { messageOfKind } from '../../protobuf/codec.ts';
import { apiVersionOf, resourceKey } from '../../registry/types.ts';
import { prefersProtobuf } from '../negotiation.ts';
import { queryBool } from '../query.ts';
import { selectionOf, selects } from '../selection.ts';
import { wantsTable } from '../table.ts';
import { Watcher, watchContentType, watchEventChunk } from '../watcher.ts';
import type { RequestScope } from './scope.ts';

/**
 * WATCH (kube-apiserver's ListResource with `watch`): the initial events or the changes since
 * `resourceVersion` (410 Gone as an ERROR event when they are no longer kept), then every change
 * the selectors match, as JSON lines, protobuf frames or one-row Tables, until `timeoutSeconds`
 * (default 30–60 min). The open watch is kept in `watchers` until it ends.
 */
export function serveWatch(s: RequestScope, watchers: Set<Watcher>): void {
  const { deps, res, type, info, query } = s;
  const accept = s.req.headers.accept;
  const { store } = deps;
  const resource = resourceKey(type.group, type.plural);
  const selection = selectionOf(type, query);
  const rvParam = query.get('resourceVersion');
  const bookmarks = queryBool(query, 'allowWatchBookmarks');
  const sendInitial = queryBool(query, 'sendInitialEvents');
  const fromRV = rvParam && rvParam !== '0' ? Number(rvParam) : undefined;
  // Built-in kinds stream protobuf frames to clients that prefer them; custom resources and
  // Tables stay JSON.
  const protobuf =
    !wantsTable(accept) &&
    prefersProtobuf(accept) &&
    messageOfKind(apiVersionOf(type), type.kind) !== undefined;
  if (fromRV !== undefined && !Number.isFinite(fromRV))
    throw badRequest(`invalid resource version: ${rvParam}`);
  let backlog: ReturnType<typeof store.changesSince> = [];
  if (fromRV !== undefined && !sendInitial) {
    backlog = store.changesSince(resource, fromRV);
    if (!backlog) {
      res.writeHead(200, { 'content-type': watchContentType(protobuf), 'transfer-encoding': 'chunked' });
      const status = gone(`too old resource version: ${fromRV} (${store.oldestWatchableRV + 1})`).toStatus();
      res.end(watchEventChunk(protobuf, 'ERROR', status));
      return;
    }
  }
  res.writeHead(200, {
    'content-type': watchContentType(protobuf),
    'transfer-encoding': 'chunked',
    'cache-control': 'no-cache, private',
  });
  res.flushHeaders();
  const startRV = fromRV ?? store.currentRV;
  const watcher = new Watcher(type, res, info.namespace, selection, bookmarks, startRV, () => {
    watchers.delete(watcher);
    unsubscribe();
    clearTimeout(timer);
  });
  watcher.protobuf = protobuf;
  if (wantsTable(accept)) watcher.asTable = { includeObject: query.get('includeObject') };
  if (CrdConverter.converts(type)) watcher.convert = (obj) => deps.objects.served(type, obj);
  if (fromRV === undefined || sendInitial) {
    for (const e of store.list(resource, info.namespace || undefined)) {
      if (!selects(type, selection, e.obj)) continue;
      watcher.sendAdded(e.obj, e.json);
    }
    watcher.lastRV = store.currentRV;
    if (sendInitial) watcher.sendBookmark(store.currentRV, true);
  } else {
    for (const e of backlog) watcher.onChange(e);
  }
  const unsubscribe = store.subscribe(resource, watcher);
  watchers.add(watcher);
  const timeoutSeconds = Number(query.get('timeoutSeconds') ?? 0) || 1800 + Math.floor(Math.random() * 1800);
  const timer = setTimeout(() => watcher.close(), timeoutSeconds * 1000);
  timer.unref();
}
