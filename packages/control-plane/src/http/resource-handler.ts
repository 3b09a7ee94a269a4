import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../auth/attributes.ts';
import { methodNotAllowed, pathNotFound } from '../errors.ts';
import type { HandlerDeps } from './deps.ts';
import { createResource, createReview } from './handlers/create.ts';
import { deleteCollection, deleteResource } from './handlers/delete.ts';
import { getResource } from './handlers/get.ts';
import { listResources } from './handlers/list.ts';
import { patchResource } from './handlers/patch.ts';
import { requestScope } from './handlers/scope.ts';
import { updateResource } from './handlers/update.ts';
import { serveWatch } from './handlers/watch.ts';
import type { RequestInfo } from './request-info.ts';
import type { Watcher } from './watcher.ts';

/**
 * Handles requests for resources (kube-apiserver's REST handlers): checks the path against the
 * resource, then hands the request to its verb's handler (`handlers/`); subresources with their
 * own storage (scale, log, token, binding, eviction) are served apart by those handlers.
 */
export class ResourceHandler {
  private readonly watchers = new Set<Watcher>();

  private readonly deps: HandlerDeps;

  constructor(deps: HandlerDeps) {
    this.deps = deps;
    const timer = setInterval(() => {
      for (const w of this.watchers) w.sendBookmark(this.deps.store.currentRV);
    }, deps.bookmarkIntervalMs);
    timer.unref();
  }

  /** Closes every open watch (a fault for tests, and on shutdown). */
  dropWatches(): number {
    const n = this.watchers.size;
    for (const w of [...this.watchers]) w.close();
    return n;
  }

  /** Number of open watches. */
  get watchCount(): number {
    return this.watchers.size;
  }

  /** Serves one resource request (authenticated and authorized already). */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    query: URLSearchParams,
    user: UserInfo,
  ): Promise<void> {
    const type = this.deps.registry.lookup(info.group, info.version, info.resource);
    if (!type) throw pathNotFound();
    if (type.namespaced && info.namespace === '' && info.verb !== 'list' && info.verb !== 'watch')
      throw pathNotFound();
    if (!type.namespaced && info.namespace !== '') throw pathNotFound();
    if (info.subresource && info.subresource !== 'status' && !type.subresources.includes(info.subresource))
      throw pathNotFound();
    if (info.subresource === 'status' && !type.statusSubresource) throw pathNotFound();
    if (info.subresource === 'log' && info.verb !== 'get') throw methodNotAllowed(req.method ?? '');
    const scope = requestScope(this.deps, req, res, type, info, query, user);
    if (type.virtual) return createReview(scope);
    switch (info.verb) {
      case 'get':
        return getResource(scope);
      case 'list':
        return listResources(scope);
      case 'watch':
        return serveWatch(scope, this.watchers);
      case 'create':
        return createResource(scope);
      case 'update':
        return updateResource(scope);
      case 'patch':
        return patchResource(scope);
      case 'delete':
        return deleteResource(scope);
      case 'deletecollection':
        return deleteCollection(scope);
      default:
        throw methodNotAllowed(req.method ?? '');
    }
  }
}
