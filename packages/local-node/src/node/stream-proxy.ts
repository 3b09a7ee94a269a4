import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

/** Headers a proxied upgrade does not pass on (hop-by-hop identity of the first leg). */
const DROPPED = new Set(['host', 'authorization', 'content-length']);

/**
 * Passes an HTTP upgrade request (WebSocket or SPDY) on to `target` (an `http://host:port/path`
 * URL, e.g. the runtime's streaming server) and then splices the two connections, as kubelet
 * proxies a CRI streaming URL: the protocol negotiated is whatever both ends agree on.
 */
export function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, target: string): void {
  const url = new URL(target);
  const upstream = connect({ host: url.hostname, port: Number(url.port) || 80 });
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    if (!DROPPED.has(req.rawHeaders[i]!.toLowerCase()))
      lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  upstream.once('connect', () => {
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  const end = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.on('error', end);
  client.on('error', end);
  upstream.on('close', end);
  client.on('close', end);
}

/** Answers an upgrade request that cannot go ahead with a plain HTTP error, then closes. */
export function refuseUpgrade(client: Duplex, code: number, message: string): void {
  const body = Buffer.from(message);
  client.end(
    `HTTP/1.1 ${code} ${code === 404 ? 'Not Found' : code === 400 ? 'Bad Request' : 'Internal Server Error'}\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${message}`,
  );
}
