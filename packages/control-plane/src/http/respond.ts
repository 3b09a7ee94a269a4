import type { ServerResponse } from 'node:http';

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, code: number, body: unknown, raw?: string): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const text = raw ?? JSON.stringify(body);
  res.writeHead(code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-cache, private',
  });
  res.end(text);
}
