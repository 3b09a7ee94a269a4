import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { type WebhookCall, webhookAdmission } from './admission/admission.ts';
import { chainAdmission } from './admission/chain.ts';
import { serviceAccountAdmission } from './admission/service-account.ts';
import { closeWebhookConnections } from './admission/webhook-client.ts';
import { ObjectService } from './api/objects.ts';
import { AuditTrail } from './audit.ts';
import type { UserInfo } from './auth/attributes.ts';
import { RbacAuthorizer } from './auth/rbac.ts';
import { TokenAuthenticator } from './auth/tokens.ts';
import { CrdController } from './controllers/crd.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import {
  type KubeControllerOptions,
  type KubeControllers,
  startKubeControllers,
} from './controllers/kube-controllers.ts';
import { NamespaceController } from './controllers/namespace.ts';
import { FaultInjector } from './faults.ts';
import { ApiHandler } from './http/handler.ts';
import { podExecUpgrade } from './http/pod-exec.ts';
import type { ResourceHandler } from './http/resource-handler.ts';
import { createServingPki } from './pki.ts';
import { ResourceRegistry } from './registry/registry.ts';
import { Persistence } from './store/persistence.ts';
import { Store } from './store/store.ts';

/** How to start a control plane. */
export interface ControlPlaneOptions extends KubeControllerOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /**
   * More addresses of this machine to serve on, at the same port (kube-apiserver's bind address
   * beyond loopback): a pod bridge's gateway, where pods outside the host network reach the API
   * server. Each goes into the serving certificate. Nothing off the machine: never 0.0.0.0.
   */
  extraBindAddresses?: string[];
  /** Keep state here across restarts; memory only when absent. */
  dataDir?: string;
  /** Changes kept for watches before old resourceVersions answer 410 Gone. */
  historyLimit?: number;
  /** How often watchers that allow bookmarks get one (ms). */
  bookmarkIntervalMs?: number;
}

const SYSTEM: UserInfo = { username: 'system:apiserver', groups: ['system:masters'] };
const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * An embedded Kubernetes API server over HTTPS on 127.0.0.1: the stand-in for kube-apiserver
 * in tests, benchmarks and the local stack.
 */
export class ControlPlane {
  readonly audit = new AuditTrail();
  /** Hear of every admission webhook call and its duration (benchmarks, tests). */
  readonly webhookCallObservers: ((call: WebhookCall) => void)[] = [];
  readonly tokens = new TokenAuthenticator();
  private readonly faultInjector = new FaultInjector();
  private server!: Server;
  private readonly extraServers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private resources!: ResourceHandler;
  private gc!: GarbageCollector;
  /** The scheduler and controllers of kube-scheduler's and kube-controller-manager's part. */
  controllers!: KubeControllers;
  url = '';
  /** TLS connections accepted so far (clients that reuse connections keep this low). */
  connectionCount = 0;
  caCert = '';

  readonly store: Store;
  readonly registry: ResourceRegistry;
  readonly objects: ObjectService;

  private constructor(store: Store, registry: ResourceRegistry, objects: ObjectService) {
    this.store = store;
    this.registry = registry;
    this.objects = objects;
  }

  /** Starts a control plane and resolves once it serves. */
  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const registry = new ResourceRegistry();
    const store = new Store(
      options.historyLimit ?? 20_000,
      options.dataDir ? new Persistence(options.dataDir) : undefined,
    );
    const objects = new ObjectService(store, registry);
    const cp = new ControlPlane(store, registry, objects);
    const deps = { store, registry, objects };
    new CrdController(deps);
    cp.gc = new GarbageCollector(deps);
    new NamespaceController(deps);
    await cp.bootstrap();
    // Built-in admission plugins first (ServiceAccount), then the webhooks, as kube-apiserver orders them.
    objects.admission = chainAdmission(
      serviceAccountAdmission(store),
      webhookAdmission(store, (call) => {
        for (const o of cp.webhookCallObservers) o(call);
      }),
    );
    const extra = options.extraBindAddresses ?? [];
    const pki = await createServingPki(undefined, undefined, extra);
    cp.caCert = pki.ca.cert;
    cp.controllers = startKubeControllers(deps, options, { rootCaCert: pki.ca.cert });
    // Every bootstrap namespace has its `default` ServiceAccount and `kube-root-ca.crt` before the first request.
    await cp.controllers.idle();
    const rbac = new RbacAuthorizer(store);
    const handler = new ApiHandler({
      store,
      registry,
      objects,
      tokens: cp.tokens,
      rbac,
      audit: cp.audit,
      faults: cp.faultInjector,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 10_000,
    });
    cp.resources = handler.resources;
    const serve = () => {
      const server = createServer(
        { cert: pki.serving.cert, key: pki.serving.key, keepAliveTimeout: 120_000 },
        (req, res) => {
          void handler.handle(req, res);
        },
      );
      server.on('secureConnection', () => cp.connectionCount++);
      // every socket, also one still in its TLS handshake (closeAllConnections sees only HTTP ones),
      // so that stop() never waits out a keep-alive of a client that connected as it stopped
      server.on('connection', (socket: Socket) => {
        cp.sockets.add(socket);
        socket.once('close', () => cp.sockets.delete(socket));
      });
      server.on('upgrade', podExecUpgrade({ store, registry, objects, tokens: cp.tokens, rbac }));
      server.headersTimeout = 60_000;
      server.requestTimeout = 0;
      return server;
    };
    const listen = (server: Server, port: number, host: string) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
    cp.server = serve();
    await listen(cp.server, options.port ?? 0, '127.0.0.1');
    const port = (cp.server.address() as AddressInfo).port;
    for (const address of extra) {
      const server = serve();
      cp.extraServers.push(server);
      await listen(server, port, address);
    }
    cp.url = `https://127.0.0.1:${port}`;
    return cp;
  }

  private async bootstrap(): Promise<void> {
    const nsType = this.registry.byResource('', 'namespaces')!;
    for (const name of BOOTSTRAP_NAMESPACES) {
      if (!this.store.get('/namespaces', '', name))
        await this.objects.create(nsType, '', { metadata: { name } }, { user: SYSTEM });
    }
  }

  /** The admin bearer token (group `system:masters`). */
  get adminToken(): string {
    return this.tokens.adminToken;
  }

  /** A kubeconfig (YAML-compatible JSON) for the admin, or for a given bearer token. */
  kubeconfig(token: string = this.adminToken, user = 'admin'): string {
    return JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'kruise',
            cluster: {
              server: this.url,
              'certificate-authority-data': Buffer.from(this.caCert).toString('base64'),
            },
          },
        ],
        users: [{ name: user, user: { token } }],
        contexts: [
          {
            name: user === 'admin' ? 'kruise' : `kruise-${user}`,
            context: { cluster: 'kruise', user, namespace: 'default' },
          },
        ],
        'current-context': user === 'admin' ? 'kruise' : `kruise-${user}`,
      },
      null,
      2,
    );
  }

  /** Writes the admin kubeconfig to a file (mode 0600). */
  writeKubeconfig(path: string): void {
    writeFileSync(path, this.kubeconfig(), { mode: 0o600 });
  }

  /** Faults for tests. */
  readonly faults = {
    /** Closes every open watch; returns how many were closed. */
    dropWatches: (): number => this.resources.dropWatches(),
    /** Forgets watch history: watches from older resourceVersions get 410 Gone. */
    compactHistory: (): void => this.store.compact(),
    /** Makes the next `count` writes of `resource` (`group/plural`, core `/pods`, or `*`) fail with `code`. */
    failWrites: (
      resource: string,
      count: number,
      code: number,
      options?: { username?: string; verbs?: string[] },
    ): void => this.faultInjector.failWrites(resource, count, code, options),
    /** Makes the next `count` requests of `resource` with one of `verbs` (e.g. `watch`, `list`) fail with `code`. */
    failRequests: (resource: string, count: number, code: number, verbs: string[], username?: string): void =>
      this.faultInjector.failRequests(resource, count, code, verbs, username),
    /**
     * Cuts a user off as a network partition would: its open connections are reset and its requests
     * get no answer (never served, never audited) until `heal`.
     */
    partition: (username: string): void => this.faultInjector.partition(username),
    /** Ends a user's partition. */
    heal: (username: string): void => this.faultInjector.heal(username),
    /** Removes injected failures and heals every partition. */
    clear: (): void => this.faultInjector.clear(),
    /** How many requests failed on purpose so far. */
    injectedCount: (): number => this.faultInjector.injected,
  };

  /** Number of open watches. */
  get watchCount(): number {
    return this.resources.watchCount;
  }

  /** Resolves once queued garbage collection has run. */
  settled(): Promise<void> {
    return this.gc.settled();
  }

  /** Stops serving, closes watches and (with a data dir) writes a snapshot. */
  async stop(): Promise<void> {
    this.controllers.stop();
    this.resources.dropWatches();
    await Promise.all(
      [this.server, ...this.extraServers]
        .map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        )
        .concat(
          (async () => {
            for (const socket of this.sockets) socket.destroy();
          })(),
        ),
    );
    this.store.close();
    closeWebhookConnections();
  }
}
