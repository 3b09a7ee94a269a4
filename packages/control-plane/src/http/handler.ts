import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attributes, UserInfo } from '../auth/attributes.ts';
import { forbiddenMessage } from '../auth/rbac.ts';
import { storedObjects } from '../auth/tokens.ts';
import {
  ApiError,
  forbidden,
  internalError,
  methodNotAllowed,
  pathNotFound,
  unauthorized,
} from '../errors.ts';
import { resourceKey } from '../registry/types.ts';
import type { HandlerDeps } from './deps.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery.ts';
import { sendObject } from './negotiation.ts';
import { groupVersionOfPath, openApiV2Document, openApiV3Document, openApiV3Index } from './openapi.ts';
import { parseRequestInfo, type RequestInfo } from './request-info.ts';
import { ResourceHandler } from './resource-handler.ts';
import { sendJson } from './respond.ts';

/** The API server's request handler: authentication, authorization, audit, then routing. */
export class ApiHandler {
  /** The resource request handler (exposed for watch faults). */
  readonly resources: ResourceHandler;

  private readonly deps: HandlerDeps;

  constructor(deps: HandlerDeps) {
    this.deps = deps;
    this.resources = new ResourceHandler(deps);
  }

  /** Handles one HTTP request; never throws. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    let user: UserInfo | undefined;
    let code = 200;
    const requested = {
      verb: info.verb,
      group: info.group,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    };
    // Recorded when the response completes — for a watch, when the client or server ends it; a
    // request held by a partition fault was never served and is not recorded.
    let held = false;
    let recorded = false;
    const record = () => {
      if (recorded || held) return;
      recorded = true;
      this.deps.audit.add({
        time: new Date().toISOString(),
        user: user?.username ?? 'system:anonymous',
        groups: user?.groups ?? [],
        ...requested,
        path: url.pathname,
        code: res.statusCode ?? code,
      });
    };
    res.on('finish', record);
    res.on('close', record);
    try {
      const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
      user = this.deps.tokens.authenticate(token, storedObjects(this.deps.store));
      if (!user) throw unauthorized();
      if (this.deps.faults.admit(user.username, res)) {
        held = true;
        return;
      }
      const attrs: Attributes = info.isResourceRequest
        ? requested
        : {
            verb: info.verb,
            group: '',
            resource: '',
            subresource: '',
            namespace: '',
            name: '',
            path: url.pathname,
          };
      if (!this.deps.rbac.authorize(user, attrs).allowed) {
        throw forbidden(
          forbiddenMessage(user, attrs),
          info.isResourceRequest
            ? { name: info.name || undefined, group: info.group, kind: info.resource }
            : undefined,
        );
      }
      if (info.isResourceRequest) {
        this.deps.faults.check(info.verb, resourceKey(info.group, info.resource), user.username);
        await this.resources.handle(req, res, info, url.searchParams, user);
      } else this.nonResource(req, res, info, url);
    } catch (err) {
      const apiErr = err instanceof ApiError ? err : internalError((err as Error)?.message ?? String(err));
      code = apiErr.code;
      sendObject(res, apiErr.code, apiErr.toStatus(), req.headers.accept);
    }
  }

  private nonResource(req: IncomingMessage, res: ServerResponse, info: RequestInfo, url: URL): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req.method ?? '');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const { registry } = this.deps;
    if (path === '/version') return sendJson(res, 200, SERVER_VERSION);
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (path === '/api') return sendJson(res, 200, apiVersions());
    if (path === '/apis') return sendJson(res, 200, apiGroupList(registry));
    if (path === '/openapi/v3') return sendJson(res, 200, openApiV3Index(registry));
    if (path === '/openapi/v2') {
      // Served as JSON only: a client that accepts only the protobuf form gets a 406.
      const accept = String(req.headers.accept ?? '');
      if (accept && !/json|\*\/\*/.test(accept))
        throw new ApiError(
          406,
          'NotAcceptable',
          'only the following media types are accepted: application/json',
        );
      return sendJson(res, 200, openApiV2Document(registry));
    }
    if (path.startsWith('/openapi/v3/')) {
      const gv = groupVersionOfPath(path.slice('/openapi/v3/'.length));
      if (gv && apiResourceList(registry, gv.group, gv.version))
        return sendJson(res, 200, openApiV3Document(registry, gv.group, gv.version));
      throw pathNotFound();
    }
    if (info.apiPrefix === 'apis' && info.group === '' && /^\/apis\/[^/]+$/.test(path)) {
      const group = apiGroup(registry, path.split('/')[2]!);
      if (group) return sendJson(res, 200, group);
    }
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'api' && parts.length === 2) {
      const list = apiResourceList(registry, '', parts[1]!);
      if (list) return sendJson(res, 200, list);
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const group = apiGroup(registry, parts[1]!);
      if (group) return sendJson(res, 200, group);
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const list = apiResourceList(registry, parts[1]!, parts[2]!);
      if (list) return sendJson(res, 200, list);
    }
    throw pathNotFound();
  }
}
