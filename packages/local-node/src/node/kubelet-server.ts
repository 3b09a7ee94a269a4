import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { CriClient } from '@kruise/cri/client';
import { createWebhookCertificates, type Logger } from '@kruise/runtime';
import { type LogQuery, lastLines, openLog, type PodLogs, readLog } from './pod-logs.ts';
import { proxyUpgrade, refuseUpgrade } from './stream-proxy.ts';

/** What `exec` needs: the runtime, and the running container's ID of a pod's container. */
export interface ExecTargets {
  cri: CriClient;
  containerId(namespace: string, pod: string, container: string): string | undefined;
}

const flag = (q: URLSearchParams, name: string) => q.get(name) === 'true' || q.get(name) === '1';

const YEAR_MS = 365 * 24 * 3600 * 1000;
/** How often a followed log is read again. */
const FOLLOW_POLL_MS = 200;

function fail(res: ServerResponse, code: number, message: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(message);
}

function queryOf(params: URLSearchParams): { q: LogQuery; follow: boolean; previous: boolean } | string {
  const int = (name: string) => {
    const v = params.get(name);
    if (v === null || v === '') return undefined;
    const n = Number(v);
    return Number.isInteger(n) ? n : Number.NaN;
  };
  const tailLines = int('tailLines');
  const limitBytes = int('limitBytes');
  const sinceSeconds = int('sinceSeconds');
  for (const [name, v] of [
    ['tailLines', tailLines],
    ['limitBytes', limitBytes],
    ['sinceSeconds', sinceSeconds],
  ] as const)
    if (Number.isNaN(v) || (v !== undefined && v < 0))
      return `${name}: Invalid value: must be a non-negative integer`;
  const sinceTime = params.get('sinceTime');
  let sinceMs = sinceSeconds !== undefined ? Date.now() - sinceSeconds * 1000 : undefined;
  if (sinceTime) {
    sinceMs = Date.parse(sinceTime);
    if (Number.isNaN(sinceMs)) return `sinceTime: Invalid value: "${sinceTime}": not an RFC 3339 time`;
  }
  const bool = (name: string) => params.get(name) === 'true' || params.get(name) === '1';
  return {
    q: { timestamps: bool('timestamps'), tailLines, limitBytes, sinceMs },
    follow: bool('follow'),
    previous: bool('previous'),
  };
}

/**
 * The part of kubelet's HTTPS server the API server calls for `kubectl logs`:
 * `GET /containerLogs/<namespace>/<pod>/<container>` with follow, previous, timestamps, tailLines,
 * limitBytes, sinceSeconds and sinceTime, answered in plain text from the runtime's log files.
 * Its certificate is self-signed (kube-apiserver does not verify kubelets' serving certificates
 * unless told to).
 */
export class KubeletServer {
  private server: Server | undefined;
  private readonly logs: PodLogs;
  private readonly log: Logger;
  private readonly following = new Set<() => void>();

  private readonly exec: ExecTargets | undefined;

  constructor(logs: PodLogs, log: Logger, exec?: ExecTargets) {
    this.logs = logs;
    this.log = log;
    this.exec = exec;
  }

  /**
   * `GET /exec/<namespace>/<pod>/<container>?command=…&stdin&stdout&stderr&tty` with an upgrade
   * (WebSocket or SPDY): CRI Exec, then the stream proxied to the runtime's streaming server, as
   * kubelet does.
   */
  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const m = /^\/exec\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!m || !this.exec) return refuseUpgrade(socket, 404, '404 page not found');
    const [namespace, pod, container] = m.slice(1).map(decodeURIComponent) as [string, string, string];
    const q = url.searchParams;
    const cmd = q.getAll('command');
    if (!cmd.length) return refuseUpgrade(socket, 400, 'missing required command parameter');
    const containerId = this.exec.containerId(namespace, pod, container);
    if (!containerId) return refuseUpgrade(socket, 404, `container not found ("${container}")`);
    try {
      const target = await this.exec.cri.exec({
        containerId,
        cmd,
        tty: flag(q, 'tty'),
        stdin: flag(q, 'stdin'),
        stdout: flag(q, 'stdout'),
        stderr: flag(q, 'stderr'),
      });
      proxyUpgrade(req, socket, head, target);
    } catch (err) {
      this.log.warn({ pod: `${namespace}/${pod}`, container, err: (err as Error).message }, 'exec failed');
      refuseUpgrade(socket, 500, (err as Error).message);
    }
  }

  /** Starts serving; resolves with the bound port. */
  async listen(host: string, port: number): Promise<number> {
    const certs = await createWebhookCertificates(['localhost'], YEAR_MS, YEAR_MS);
    this.server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://kubelet');
      const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'GET' || !m) return fail(res, 404, '404 page not found');
      const [namespace, pod, container] = m.slice(1).map(decodeURIComponent) as [string, string, string];
      const query = queryOf(url.searchParams);
      if (typeof query === 'string') return fail(res, 400, query);
      void this.serveLog(res, namespace, pod, container, query).catch((err) => {
        this.log.warn(
          { pod: `${namespace}/${pod}`, container, err: (err as Error).message },
          'log read failed',
        );
        fail(res, 500, (err as Error).message);
      });
    });
    this.server.on('tlsClientError', () => undefined);
    this.server.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  private async serveLog(
    res: ServerResponse,
    namespace: string,
    pod: string,
    container: string,
    { q, follow, previous }: { q: LogQuery; follow: boolean; previous: boolean },
  ): Promise<void> {
    const files = this.logs.files(namespace, pod, container);
    const file = previous ? files[1] : files[0];
    if (!file) {
      return fail(
        res,
        400,
        previous
          ? `previous terminated container "${container}" in pod "${pod}" not found`
          : `container "${container}" in pod "${pod}" is waiting to start: ContainerCreating`,
      );
    }
    let budget = q.limitBytes ?? Number.POSITIVE_INFINITY;
    const write = (text: string): boolean => {
      const chunk = Buffer.from(text, 'utf8').subarray(0, budget);
      if (chunk.length) res.write(chunk);
      budget -= chunk.length;
      return budget > 0;
    };
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    // A followed log is read through one open handle, so what the container wrote last is still
    // read after its file is replaced or removed with the pod.
    const handle = follow && !previous ? await openLog(file) : undefined;
    const first = await readLog(handle ?? file, 0, q);
    const open = write(q.tailLines !== undefined ? lastLines(first.text, q.tailLines) : first.text);
    if (!handle || !open) {
      await handle?.close();
      return void res.end();
    }
    // Follow until the client goes, the container is replaced by a newer attempt, or its logs go;
    // the read after the file was seen gone or replaced is the last one.
    let offset = first.offset;
    let reading = false;
    const timer = setInterval(() => {
      if (reading) return;
      reading = true;
      const current = this.logs.files(namespace, pod, container)[0];
      void readLog(handle, offset, q)
        .then((next) => {
          offset = next.offset;
          if (!write(next.text) || current !== file) stopFollowing();
        })
        .catch(() => stopFollowing())
        .finally(() => {
          reading = false;
        });
    }, FOLLOW_POLL_MS);
    const stopFollowing = () => {
      clearInterval(timer);
      if (!this.following.delete(stopFollowing)) return;
      void handle.close().catch(() => undefined);
      res.end();
    };
    this.following.add(stopFollowing);
    res.on('close', stopFollowing);
  }

  /** Stops serving and ends every followed log. */
  async close(): Promise<void> {
    for (const stopFollowing of [...this.following]) stopFollowing();
    if (!this.server) return;
    await new Promise<void>((resolve) => {
      this.server!.close(() => resolve());
      this.server!.closeAllConnections();
    });
  }
}
