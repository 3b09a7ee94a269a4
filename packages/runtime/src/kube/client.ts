import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher, request } from 'undici';
import { errorFor, KubeApiError } from './errors.ts';
import { type ClusterAccess, inClusterAccess, parseKubeconfig } from './kubeconfig.ts';
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

/**
 * A small REST client: one keep-alive connection pool per API server, JSON bodies as they are
 * (objects keep every field, timestamps stay strings), typed errors. It reads kubeconfigs and the
 * in-cluster configuration itself instead of loading client-node, whose import alone costs
 * ~85 MB of RSS (see ADR 0006).
 */
export class KubeClient {
  readonly access: ClusterAccess;
  private readonly dispatcher: Agent;
  /** Requests made so far (for tests that count them). */
  requestCount = 0;

  constructor(access: ClusterAccess) {
    this.access = access;
    this.dispatcher = new Agent({
      connect: {
        ...(access.ca ? { ca: access.ca } : {}),
        ...(access.cert ? { cert: access.cert } : {}),
        ...(access.key ? { key: access.key } : {}),
        ...(access.tlsServerName ? { servername: access.tlsServerName } : {}),
        rejectUnauthorized: !access.insecureSkipTlsVerify,
      },
      keepAliveTimeout: 60_000,
    });
  }

  /** A client from a kubeconfig file, or from the in-cluster service account when `path` is absent. */
  static load(path?: string): KubeClient {
    return new KubeClient(path ? parseKubeconfig(readFileSync(path, 'utf8')) : inClusterAccess());
  }

  /** A client from kubeconfig text. */
  static fromString(text: string): KubeClient {
    return new KubeClient(parseKubeconfig(text));
  }

  /** Closes the connection pool. */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** Builds an authenticated request for a path. */
  async prepare(_method: string, path: string, query?: Query): Promise<{ url: URL; headers: Record<string, string>; dispatcher: Dispatcher }> {
    const url = new URL(this.access.server + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    return { url, headers: await this.access.authHeaders(), dispatcher: this.dispatcher };
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
