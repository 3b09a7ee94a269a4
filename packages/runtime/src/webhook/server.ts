import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type Logger, silentLogger } from '../log/logger.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { AdmissionHandler, AdmissionRequest } from './admission.ts';
import type { ConversionHandler, ConversionRequest } from './conversion.ts';

/** What is served at a path: admission (AdmissionReview) or conversion (ConversionReview). */
type Route =
  | { review: 'AdmissionReview'; handler: AdmissionHandler }
  | { review: 'ConversionReview'; handler: ConversionHandler };

/** The API version a review is answered at when the request names none. */
const DEFAULT_API_VERSION: Record<Route['review'], string> = {
  AdmissionReview: 'admission.k8s.io/v1',
  ConversionReview: 'apiextensions.k8s.io/v1',
};

/** The response to a review whose handler threw: a denial (admission) or a Failure result (conversion). */
function internalError(route: Route, message: string): Record<string, unknown> {
  return route.review === 'AdmissionReview'
    ? { allowed: false, status: { code: 500, message } }
    : { convertedObjects: [], result: { status: 'Failure', message } };
}

/** Largest AdmissionReview accepted (kube-apiserver's request limit is 3 MiB; objects fit in it). */
export const MAX_REVIEW_BYTES = 7 * 1024 * 1024;

/**
 * How long the server keeps an idle client connection: longer than kube-apiserver's 90 s idle timeout,
 * so the API server, not this server, closes it and never sends a review on a connection being closed.
 * (controller-runtime's Go server has no idle limit; Node's default is 5 s, which made every burst of
 * admission calls after a pause pay a TLS handshake per call — ADR 0015.)
 */
export const WEBHOOK_KEEP_ALIVE_MS = 120_000;

/** Serving certificate and key, PEM. */
export interface ServingCertificate {
  cert: string;
  key: string;
}

/**
 * The webhook server: HTTPS, handlers by path, each serving admission (AdmissionReview) or CRD
 * conversion (ConversionReview, e.g. at `/convert`); a review is answered at the API version it
 * came in (v1 or v1beta1). Malformed bodies, wrong content types and oversized bodies get 400 (as
 * controller-runtime answers them) and the process keeps serving; a handler that throws fails that
 * request only (a 500 denial, a Failure result). Certificates are swapped without a restart.
 */
export class WebhookServer {
  private readonly routes = new Map<string, Route>();
  private server: Server | undefined;
  private readonly log: Logger;
  private started = false;
  private connections = 0;
  /** Requests answered, by path, for tests and metrics. */
  readonly served = new Map<string, number>();

  private readonly metrics: Metrics | undefined;

  /** `metrics`: where controller-runtime's webhook metrics go (requests by code, latency, in flight), by path. */
  constructor(options: { logger?: Logger; metrics?: Metrics } = {}) {
    this.log = (options.logger ?? silentLogger).child({ server: 'webhook' });
    this.metrics = options.metrics;
  }

  /** Registers an admission handler at a path. */
  register(path: string, handler: AdmissionHandler): void {
    this.routes.set(path, { review: 'AdmissionReview', handler });
  }

  /** Registers a CRD conversion handler at a path (upstream's is `/convert`). */
  registerConversion(path: string, handler: ConversionHandler): void {
    this.routes.set(path, { review: 'ConversionReview', handler });
  }

  /** Paths that have a handler. */
  paths(): string[] {
    return [...this.routes.keys()];
  }

  /** TLS connections accepted since the start (each one a handshake). */
  get connectionCount(): number {
    return this.connections;
  }

  /** Whether the server is listening. */
  get isStarted(): boolean {
    return this.started;
  }

  /** Starts serving with a certificate; resolves with the bound port. */
  async listen(host: string, port: number, certificate: ServingCertificate): Promise<number> {
    this.server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
      const started = process.hrtime.bigint();
      const asked = (req.url ?? '/').split('?')[0]!;
      // a path no handler serves is counted as one label, whatever was asked
      const webhook = this.routes.has(asked) ? asked : 'unknown';
      this.metrics?.webhookInFlight.inc({ webhook });
      const reply = (code: number, body: unknown) => {
        if (res.headersSent) return;
        this.metrics?.webhookInFlight.dec({ webhook });
        this.metrics?.webhookRequests.inc({ webhook, code: String(code) });
        this.metrics?.webhookLatency.observe({ webhook }, Number(process.hrtime.bigint() - started) / 1e9);
        const text = JSON.stringify(body);
        res.writeHead(code, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
      };
      const fail = (code: number, message: string) => {
        this.log.warn({ path: req.url, code, err: message }, 'rejected a malformed webhook request');
        reply(code, { error: message });
      };
      const path = (req.url ?? '/').split('?')[0]!;
      const route = this.routes.get(path);
      if (req.method !== 'POST') return fail(405, `method ${req.method} not allowed`);
      if (!route) return fail(404, `no webhook at ${path}`);
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (contentType !== 'application/json')
        return fail(400, `contentType=${contentType}, expected application/json`);
      const chunks: Buffer[] = [];
      let size = 0;
      let aborted = false;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_REVIEW_BYTES && !aborted) {
          aborted = true;
          res.setHeader('connection', 'close');
          fail(400, `request body too large: more than ${MAX_REVIEW_BYTES} bytes`);
          chunks.length = 0;
        } else if (!aborted) chunks.push(c);
      });
      req.on('error', () => undefined);
      req.on('end', () => {
        if (aborted) return;
        let review: any;
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return fail(400, 'the request body is not valid JSON');
        }
        const request: (AdmissionRequest & ConversionRequest) | undefined = review?.request;
        if (
          review?.kind !== route.review ||
          !request ||
          typeof request !== 'object' ||
          typeof request.uid !== 'string'
        ) {
          return fail(400, `the body is no ${route.review} with a request`);
        }
        Promise.resolve()
          .then(() => route.handler(request))
          .then(
            (response): object => {
              this.served.set(path, (this.served.get(path) ?? 0) + 1);
              return response;
            },
            (err) => {
              const message = (err as Error)?.message ?? String(err);
              this.log.error({ path, err: message }, 'webhook handler failed');
              return internalError(route, `internal error: ${message}`);
            },
          )
          .then((response) =>
            reply(200, {
              apiVersion: review.apiVersion ?? DEFAULT_API_VERSION[route.review],
              kind: route.review,
              response: { ...response, uid: request.uid },
            }),
          );
      });
    });
    this.server.keepAliveTimeout = WEBHOOK_KEEP_ALIVE_MS;
    this.server.on('secureConnection', () => this.connections++);
    this.server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    this.started = true;
    return (this.server.address() as AddressInfo).port;
  }

  /** Swaps the serving certificate; new connections use it at once. */
  setCertificate(certificate: ServingCertificate): void {
    this.server?.setSecureContext({ cert: certificate.cert, key: certificate.key });
  }

  /** Stops serving. */
  async close(): Promise<void> {
    this.started = false;
    if (!this.server) return;
    await new Promise<void>((resolve) => {
      this.server!.close(() => resolve());
      this.server!.closeAllConnections();
    });
  }
}
