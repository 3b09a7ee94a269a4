import type { IncomingMessage, ServerResponse } from 'node:http';
import { nowRFC3339 } from '../api/context.ts';
import type { UserInfo } from '../auth/attributes.ts';
import { CrdConverter } from '../crd/conversion.ts';
import {
  ApiError,
  badRequest,
  continueExpired,
  gone,
  methodNotAllowed,
  notFound,
  pathNotFound,
  unsupportedMediaType,
} from '../errors.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { applyMergePatch } from '../patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../patch/strategic-merge.ts';
import { messageOfKind } from '../protobuf/codec.ts';
import { apiVersionOf, type KubeObject, type ResourceType, resourceKey } from '../registry/types.ts';
import { matchesFields, parseFieldSelector } from '../selectors/field-selector.ts';
import { matchesLabels, parseLabelSelector } from '../selectors/label-selector.ts';
import { managerOf } from '../ssa/field-manager.ts';
import type { Entry } from '../store/store.ts';
import { forceNotAllowed, serveApply } from './apply.ts';
import { parseJson, readBody } from './body.ts';
import { deleteResult } from './delete-result.ts';
import type { HandlerDeps } from './deps.ts';
import {
  APPLY_PATCH,
  mediaTypeOf,
  patchTypesOf,
  prefersProtobuf,
  readObjectBody,
  sendObject,
} from './negotiation.ts';
import { postPodSubresource } from './pod-actions.ts';
import { streamPodLog } from './pod-log.ts';
import { queryBool } from './query.ts';
import type { RequestInfo } from './request-info.ts';
import { sendJson } from './respond.ts';
import { applyScale, toScale } from './scale.ts';
import { toTable, wantsTable } from './table.ts';
import { selectableFieldsOf, Watcher, watchContentType, watchEventChunk } from './watcher.ts';
import { deleteOptionsOf, writeOptionsOf } from './write-options.ts';

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

/** Handles requests for resources: CRUD, list, watch and subresources. */
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
    const options = {
      ...writeOptionsOf(info.verb, query, user, info.subresource),
      fieldManager: managerOf(query.get('fieldManager'), req.headers['user-agent']),
    };
    const { warnings } = options;
    const accept = req.headers.accept;
    const send = (code: number, body: unknown, rawJson?: string) => {
      if (warnings.length && !res.headersSent)
        res.setHeader(
          'Warning',
          // RFC 7234 warn-text: a quoted string with `"` and `\` escaped (kubectl unescapes it).
          warnings.map((w) => `299 - "${w.replace(/[\\"]/g, (c) => `\\${c}`)}"`),
        );
      sendObject(res, code, body, accept, rawJson);
    };
    if (type.virtual) {
      if (info.verb !== 'create') throw methodNotAllowed(req.method ?? '');
      const body = await readObjectBody(req);
      const answer = type.virtual(
        { ...body, apiVersion: apiVersionOf(type), kind: type.kind, metadata: body?.metadata ?? {} },
        { user, authorize: (a) => this.deps.rbac.authorize(user, a) },
      );
      return send(201, answer);
    }
    switch (info.verb) {
      case 'get': {
        if (info.subresource === 'token') throw methodNotAllowed('GET');
        const e = this.deps.objects.getEntry(type, info.namespace, info.name);
        if (info.subresource === 'scale')
          return send(200, toScale(type, await this.deps.objects.served(type, e.obj)));
        if (info.subresource === 'log')
          return streamPodLog(res, e.obj, query, (name) => {
            const nodes = this.deps.registry.lookup('', 'v1', 'nodes')!;
            return this.deps.objects.getEntry(nodes, '', name).obj;
          });
        if (wantsTable(req.headers.accept))
          return send(
            200,
            toTable(type, [e.obj], { resourceVersion: String(e.rv) }, query.get('includeObject')),
          );
        if (CrdConverter.converts(type) && e.obj.apiVersion !== apiVersionOf(type))
          return send(200, await this.deps.objects.served(type, e.obj));
        return send(200, e.obj, e.json);
      }
      case 'list':
        return this.list(req, res, type, info, query);
      case 'watch':
        return this.watch(res, type, info, query, req.headers.accept);
      case 'create': {
        const body = await readObjectBody(req);
        if (info.subresource === 'token') return send(201, this.tokenRequest(type, info, body));
        if (info.name && !info.subresource) throw methodNotAllowed('POST');
        if (info.subresource)
          return send(201, await postPodSubresource(this.deps, type, info, body, options));
        const created = await this.deps.objects.create(type, info.namespace, body, options);
        return send(201, created);
      }
      case 'update': {
        if (!info.name) throw methodNotAllowed('PUT');
        const body = await readObjectBody(req);
        if (info.subresource === 'scale') {
          const scaled = await this.deps.objects.update(
            type,
            info.namespace,
            info.name,
            { patch: (cur) => applyScale(type, cur, body) },
            { ...options, subresource: '' },
          );
          return send(200, toScale(type, scaled));
        }
        return send(200, await this.deps.objects.update(type, info.namespace, info.name, { body }, options));
      }
      case 'patch': {
        if (!info.name) throw methodNotAllowed('PATCH');
        const patchType = mediaTypeOf(req);
        const patchTypes = patchTypesOf(type);
        if (!patchTypes.includes(patchType)) throw unsupportedMediaType(patchTypes);
        if (patchType === APPLY_PATCH) {
          const applied = await serveApply(this.deps.objects, type, info, query, req, options);
          return send(applied.code, applied.obj);
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
        const patchDocument = (cur: KubeObject): KubeObject => {
          if (patchType === 'application/json-patch+json') return applyJsonPatch(cur, patch) as KubeObject;
          if (patchType === 'application/merge-patch+json') return applyMergePatch(cur, patch) as KubeObject;
          return applyStrategicMergePatch(cur, patch);
        };
        if (info.subresource === 'scale') {
          const scaled = await this.deps.objects.update(
            type,
            info.namespace,
            info.name,
            { patch: (cur) => applyScale(type, cur, patchDocument(toScale(type, cur))) },
            { ...options, subresource: '' },
          );
          return send(200, toScale(type, scaled));
        }
        return send(
          200,
          await this.deps.objects.update(type, info.namespace, info.name, { patch: patchDocument }, options),
        );
      }
      case 'delete': {
        const body = await readObjectBody(req, {});
        const del = deleteOptionsOf(info.verb, body, query, options);
        return send(
          200,
          deleteResult(type, await this.deps.objects.delete(type, info.namespace, info.name, del)),
        );
      }
      case 'deletecollection': {
        const labels = parseLabelSelector(query.get('labelSelector'));
        const fields = this.fieldSelector(type, query);
        const deleted: KubeObject[] = [];
        for (const e of this.deps.store.list(
          resourceKey(type.group, type.plural),
          info.namespace || undefined,
        )) {
          if (
            !matchesLabels(labels, e.obj.metadata?.labels) ||
            !matchesFields(fields, selectableFieldsOf(type, e.obj))
          )
            continue;
          try {
            deleted.push(
              await this.deps.objects.delete(
                type,
                e.obj.metadata?.namespace ?? '',
                e.obj.metadata?.name,
                options,
              ),
            );
          } catch (err) {
            if (!(err instanceof ApiError && err.code === 404)) throw err;
          }
        }
        return send(200, {
          kind: type.listKind,
          apiVersion: apiVersionOf(type),
          metadata: { resourceVersion: String(this.deps.store.currentRV) },
          items: deleted,
        });
      }
      default:
        throw methodNotAllowed(req.method ?? '');
    }
  }

  private fieldSelector(type: ResourceType, query: URLSearchParams) {
    const fields = parseFieldSelector(query.get('fieldSelector'));
    const known = selectableFieldsOf(type, {});
    for (const f of fields) {
      if (!(f.field in known)) throw badRequest(`field label not supported: ${f.field}`);
    }
    return fields;
  }

  private async list(
    req: IncomingMessage,
    res: ServerResponse,
    type: ResourceType,
    info: RequestInfo,
    query: URLSearchParams,
  ): Promise<void> {
    const { store } = this.deps;
    const labels = parseLabelSelector(query.get('labelSelector'));
    const fields = this.fieldSelector(type, query);
    const rvParam = query.get('resourceVersion');
    if (rvParam && rvParam !== '0' && Number(rvParam) > store.currentRV) {
      throw new ApiError(
        504,
        'Timeout',
        `Too large resource version: ${rvParam}, current: ${store.currentRV}`,
        { retryAfterSeconds: 1 },
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
      if (labels.length && !matchesLabels(labels, e.obj.metadata?.labels)) continue;
      if (fields.length && !matchesFields(fields, selectableFieldsOf(type, e.obj))) continue;
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
      objects = await this.deps.objects.converter.convert(type, objects, apiVersionOf(type));
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

  private watch(
    res: ServerResponse,
    type: ResourceType,
    info: RequestInfo,
    query: URLSearchParams,
    accept: string | undefined,
  ): void {
    const { store } = this.deps;
    const resource = resourceKey(type.group, type.plural);
    const labels = parseLabelSelector(query.get('labelSelector'));
    const fields = this.fieldSelector(type, query);
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
        const status = gone(
          `too old resource version: ${fromRV} (${store.oldestWatchableRV + 1})`,
        ).toStatus();
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
    const watcher = new Watcher(type, res, info.namespace, labels, fields, bookmarks, startRV, () => {
      this.watchers.delete(watcher);
      unsubscribe();
      clearTimeout(timer);
    });
    watcher.protobuf = protobuf;
    if (wantsTable(accept)) watcher.asTable = { includeObject: query.get('includeObject') };
    if (CrdConverter.converts(type)) watcher.convert = (obj) => this.deps.objects.served(type, obj);
    if (fromRV === undefined || sendInitial) {
      for (const e of store.list(resource, info.namespace || undefined)) {
        if (labels.length && !matchesLabels(labels, e.obj.metadata?.labels)) continue;
        if (fields.length && !matchesFields(fields, selectableFieldsOf(type, e.obj))) continue;
        watcher.sendAdded(e.obj, e.json);
      }
      watcher.lastRV = store.currentRV;
      if (sendInitial) watcher.sendBookmark(store.currentRV, true);
    } else {
      for (const e of backlog) watcher.onChange(e);
    }
    const unsubscribe = store.subscribe(resource, watcher);
    this.watchers.add(watcher);
    const timeoutSeconds =
      Number(query.get('timeoutSeconds') ?? 0) || 1800 + Math.floor(Math.random() * 1800);
    const timer = setTimeout(() => watcher.close(), timeoutSeconds * 1000);
    timer.unref();
  }

  private tokenRequest(type: ResourceType, info: RequestInfo, body: KubeObject): KubeObject {
    if (type.plural !== 'serviceaccounts') throw pathNotFound();
    const sa = this.deps.store.get('/serviceaccounts', info.namespace, info.name);
    if (!sa) throw notFound('serviceaccounts', '', info.name);
    const seconds = Math.max(600, Number(body?.spec?.expirationSeconds ?? 3600));
    const { token, expiresAt } = this.deps.tokens.issueServiceAccountToken(
      info.namespace,
      info.name,
      sa.obj.metadata?.uid,
      seconds,
    );
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: info.name, namespace: info.namespace, creationTimestamp: nowRFC3339() },
      spec: {
        audiences: body?.spec?.audiences ?? ['https://kubernetes.default.svc'],
        expirationSeconds: seconds,
        boundObjectRef: body?.spec?.boundObjectRef ?? null,
      },
      status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    };
  }
}
