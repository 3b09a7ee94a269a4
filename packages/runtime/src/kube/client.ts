import { readFileSync } from 'node:fs';
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { type Dispatcher, request } from 'undici';
import { withConnectionReuse } from './connection-reuse.ts';
import { errorFor, KubeApiError } from './errors.ts';
import { apiVersionOf, collectionPath, objectPath, type ResourceRef } from './resources.ts';

/** A Kubernetes object as JSON; timestamps stay RFC 3339 strings. */
export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, any>;
  [key: string]: any;
};

/** A list as the API server returns it. */
export interface KubeList<T> {
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** Options of a list call. */
export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

/** Options of a write call. */
export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
}

type Query = Record<string, string | number | boolean | undefined>;

const METHODS: Record<string, HttpMethod> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

/**
 * A small REST client on top of client-node: client-node loads the kubeconfig (or the in-cluster
 * config) and authenticates every request; bodies go over the wire as plain JSON, so objects keep
 * every field and timestamps stay strings (see ADR 0006).
 */
export class KubeClient {
  readonly kubeConfig: KubeConfig;
  private readonly server: string;
  /** Requests made so far (for tests that count them). */
  requestCount = 0;

  constructor(kubeConfig: KubeConfig) {
    this.kubeConfig = withConnectionReuse(kubeConfig);
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  /** A client from a kubeconfig file, or from the in-cluster service account when `path` is absent. */
  static load(path?: string): KubeClient {
    const kc = new KubeConfig();
    if (path) kc.loadFromString(readFileSync(path, 'utf8'));
    else kc.loadFromCluster();
    return new KubeClient(kc);
  }

  /** A client from kubeconfig text. */
  static fromString(text: string): KubeClient {
    const kc = new KubeConfig();
    kc.loadFromString(text);
    return new KubeClient(kc);
  }

  /** Builds an authenticated request for a path. */
  async prepare(
    method: string,
    path: string,
    query?: Query,
  ): Promise<{ url: URL; headers: Record<string, string>; dispatcher: Dispatcher | undefined }> {
    const url = new URL(this.server + path);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const ctx = new RequestContext(url.toString(), METHODS[method] ?? HttpMethod.GET);
    await this.kubeConfig.applySecurityAuthentication(ctx);
    return { url, headers: ctx.getHeaders(), dispatcher: ctx.getDispatcher() as Dispatcher | undefined };
  }

  /** Sends one request; resolves with the parsed body or throws a typed {@link KubeApiError}. */
  async request<T = any>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const { url, headers, dispatcher } = await this.prepare(method, path, options.query);
    this.requestCount++;
    const response = await request(url, {
      method: method as Dispatcher.HttpMethod,
      headers: {
        ...headers,
        accept: 'application/json',
        ...(options.body !== undefined ? { 'content-type': options.contentType ?? 'application/json' } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      dispatcher,
      signal: options.signal,
    });
    const text = await response.body.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = { message: text.slice(0, 500) };
    }
    if (response.statusCode >= 400) throw errorFor(response.statusCode, parsed ?? {});
    return parsed as T;
  }

  /** GET one object. */
  get<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    return this.request('GET', objectPath(r, namespace, name));
  }

  /** GET a list (one page unless `limit` is absent and the server returns everything). */
  list<T extends KubeObject = KubeObject>(r: ResourceRef, options: ListOptions = {}): Promise<KubeList<T>> {
    const { namespace, continue: cont, ...rest } = options;
    return this.request('GET', collectionPath(r, namespace), { query: { ...rest, continue: cont } });
  }

  /** Lists every page. */
  async listAll<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    options: ListOptions = {},
  ): Promise<KubeList<T>> {
    const items: T[] = [];
    let cont: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.list<T>(r, { limit: 500, ...options, continue: cont });
      items.push(...page.items);
      resourceVersion = page.metadata.resourceVersion;
      cont = page.metadata.continue || undefined;
    } while (cont);
    return { metadata: { resourceVersion }, items };
  }

  /** POST a new object. */
  create<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    obj: KubeObject,
    options: WriteOptions = {},
  ): Promise<T> {
    const body = { apiVersion: apiVersionOf(r), kind: r.kind, ...obj };
    return this.request('POST', collectionPath(r, obj.metadata?.namespace), {
      body,
      query: writeQuery(options),
    });
  }

  /** PUT an object (its resourceVersion guards against lost updates). */
  update<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    obj: KubeObject,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.request('PUT', objectPath(r, obj.metadata?.namespace, obj.metadata?.name), {
      body: obj,
      query: writeQuery(options),
    });
  }

  /** PUT an object's status subresource. */
  updateStatus<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    obj: KubeObject,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.request('PUT', objectPath(r, obj.metadata?.namespace, obj.metadata?.name, 'status'), {
      body: obj,
      query: writeQuery(options),
    });
  }

  /** A JSON merge patch of the object (or of a subresource such as `status`). */
  mergePatch<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    subresource?: string,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.request('PATCH', objectPath(r, namespace, name, subresource), {
      body: patch,
      contentType: 'application/merge-patch+json',
      query: writeQuery(options),
    });
  }

  /** A merge patch of the status subresource. */
  mergePatchStatus<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: unknown,
  ): Promise<T> {
    return this.mergePatch(r, namespace, name, patch, 'status');
  }

  /** A JSON (RFC 6902) patch. */
  jsonPatch<T extends KubeObject = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    ops: unknown[],
    subresource?: string,
  ): Promise<T> {
    return this.request('PATCH', objectPath(r, namespace, name, subresource), {
      body: ops,
      contentType: 'application/json-patch+json',
    });
  }

  /** DELETE an object. */
  delete(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    options: {
      propagationPolicy?: string;
      gracePeriodSeconds?: number;
      preconditions?: { uid?: string; resourceVersion?: string };
    } = {},
  ): Promise<KubeObject> {
    return this.request('DELETE', objectPath(r, namespace, name), {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', ...options },
    });
  }
}

function writeQuery(options: WriteOptions): Query {
  return { dryRun: options.dryRun ? 'All' : undefined, fieldManager: options.fieldManager };
}

export { KubeApiError };
