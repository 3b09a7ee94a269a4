import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpDate } from '@kruise/kube-compat/time';

/** A named check: resolves when healthy, throws (or rejects) with the reason otherwise. */
export type Check = () => void | Promise<void>;

/** Serves `/healthz`, `/readyz` (named checks, `?verbose`) and optionally `/metrics` over plain HTTP. */
export class ProbeServer {
  private readonly healthz = new Map<string, Check>();
  private readonly readyz = new Map<string, Check>();
  private readonly extra = new Map<
    string,
    (req: IncomingMessage, res: ServerResponse) => void | Promise<void>
  >();
  private server: Server | undefined;

  /** Adds a liveness check. */
  addHealthzCheck(name: string, check: Check): void {
    this.healthz.set(name, check);
  }

  /** Adds a readiness check. */
  addReadyzCheck(name: string, check: Check): void {
    this.readyz.set(name, check);
  }

  /** Serves another path (e.g. `/metrics`). */
  handle(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): void {
    this.extra.set(path, handler);
  }

  private async runChecks(checks: Map<string, Check>, verbose: boolean, res: ServerResponse): Promise<void> {
    const lines: string[] = [];
    let ok = true;
    for (const [name, check] of checks) {
      try {
        await check();
        lines.push(`[+]${name} ok`);
      } catch (err) {
        ok = false;
        lines.push(`[-]${name} failed: ${(err as Error)?.message ?? String(err)}`);
      }
    }
    res.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(
      verbose || !ok
        ? `${lines.join('\n')}\n${ok ? 'healthz check passed' : 'healthz check failed'}\n`
        : 'ok',
    );
  }

  /** Starts listening; resolves with the bound port. */
  async listen(host: string, port: number): Promise<number> {
    this.server = createServer((req, res) => {
      // Node's own Date header uses Date#toUTCString (see @kruise/kube-compat isoTime: ~3 MB of RSS).
      res.sendDate = false;
      res.setHeader('date', httpDate());
      const url = new URL(req.url ?? '/', 'http://localhost');
      const verbose = url.searchParams.has('verbose');
      const handler = this.extra.get(url.pathname);
      const work =
        url.pathname === '/healthz' || url.pathname === '/livez'
          ? this.runChecks(this.healthz, verbose, res)
          : url.pathname === '/readyz'
            ? this.runChecks(this.readyz, verbose, res)
            : handler
              ? Promise.resolve(handler(req, res))
              : Promise.resolve().then(() => {
                  res.writeHead(404, { 'content-type': 'text/plain' });
                  res.end('404 page not found\n');
                });
      work.catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    if (!this.server) return;
    await new Promise<void>((resolve) => {
      this.server!.close(() => resolve());
      this.server!.closeAllConnections();
    });
  }
}
