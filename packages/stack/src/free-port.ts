import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (for a server that must keep its port across restarts, or cannot listen on port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}
