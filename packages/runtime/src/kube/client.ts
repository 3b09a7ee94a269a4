import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { errorFor, KubeApiError } from './errors.ts';
import { type ClusterAccess, inClusterAccess, parseKubeconfig } from './kubeconfig.ts';
import { currentRequestSignal } from './request-scope.ts';
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
  private readonly agent: HttpAgent;
  private readonly secure: boolean;
  /** Requests made so far (for tests that count them). */
  requestCount = 0;

  constructor(access: ClusterAccess) {
    this.access = access;
    this.secure = access.server.startsWith('https:');
    this.agent = this.secure
      ? new HttpsAgent({
          keepAlive: true,
          maxSockets: 64,
          ...(access.ca ? { ca: access.ca } : {}),
          ...(access.cert ? { cert: access.cert } : {}),
          ...(access.key ? { key: access.key } : {}),
          ...(access.tlsServerName ? { servername: access.tlsServerName } : {}),
          rejectUnauthorized: !access.insecureSkipTlsVerify,
        })
      : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  }

  /** A client from a kubeconfig file, or from the in-cluster service account when `path` is absent. */
  static load(path?: string): KubeClient {
    return new KubeClient(path ? parseKubeconfig(readFileSync(path, 'utf8')) : inClusterAccess());
  }

  /** A client from kubeconfig text. */
  static fromString(text: string): KubeClient {
    return new KubeClient(parseKubeconfig(text));
  }

  /** Closes idle connections. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * Opens a request and resolves with the response once its headers arrive (the body is left
   * to the caller). Used for plain calls and for watch streams. The request is tied to
   * `options.signal` and to the signal of the work it runs in (`withRequestSignal`): once either is
   * aborted, nothing more is sent and a request in flight is cancelled.
   */
  async open(
    method: string,
    path: string,
    options: { query?: Query; body?: string; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<IncomingMessage> {
    const url = new URL(this.access.server + path);
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string | number> = {
      ...(await this.access.authHeaders()),
      accept: 'application/json',
    };
    if (options.body !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(options.body);
    }
    const scoped = currentRequestSignal();
    const signal =
      scoped && options.signal ? AbortSignal.any([scoped, options.signal]) : (scoped ?? options.signal);
    signal?.throwIfAborted();
    this.requestCount++;
    const send = this.secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { method, headers, agent: this.agent, ...(signal ? { signal } : {}) }, resolve);
      req.on('error', reject);
      req.end(options.body);
    });
  }

  /** Sends one request; resolves with the parsed body or throws a typed {@link KubeApiError}. */
  async request<T = any>(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const response = await this.open(method, path, {
      ...options,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await readAll(response);
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = { message: text.slice(0, 500) };
    }
    if ((response.statusCode ?? 0) >= 400) throw errorFor(response.statusCode ?? 0, parsed ?? {});
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

/** Reads a response body as text. */
export function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (c: Buffer) => chunks.push(c));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

function writeQuery(options: WriteOptions): Query {
  return { dryRun: options.dryRun ? 'All' : undefined, fieldManager: options.fieldManager };
}

export { KubeApiError };
