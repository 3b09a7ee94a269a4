/** Splits a Go-style listen address (`:8080`, `127.0.0.1:8000`, `0` to disable) into host and port. */
export function parseListenAddress(addr: string): { host: string; port: number } | undefined {
  if (addr === '0' || addr === '') return undefined;
  const colon = addr.lastIndexOf(':');
  const host = colon <= 0 ? '0.0.0.0' : addr.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(colon === -1 ? addr : addr.slice(colon + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid listen address "${addr}"`);
  return { host, port };
}
