import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../../../test/support/poll.ts';
import { CriClient } from '../src/client.ts';
import { type HandlerTarget, runLifecycleHandler } from '../src/lifecycle-handler.ts';

// The network and sleep handlers against servers of this test on 127.0.0.1 (the pod's address);
// the exec handler runs in real containers in test/e2e (local-node.test.ts, crr.test.ts).
let cri: CriClient;
let http: Server;
let httpPort: number;
const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
let answer = 200;

const listening = async (server: NetServer) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1').once('listening', () => r()));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  cri = new CriClient(inject('criSocket'));
  http = createHttpServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(answer).end('ok');
  });
  httpPort = await listening(http);
});
afterAll(() => {
  cri.close();
  http.close();
});

const target = (ports: HandlerTarget['ports'] = []): HandlerTarget => ({
  containerId: 'unused-by-network-handlers',
  containerName: 'app',
  podIP: '127.0.0.1',
  ports,
});

describe('lifecycle handlers', () => {
  it('httpGet calls the path on the named port with the headers, and fails on an error status as kubelet says', async () => {
    answer = 200;
    const handler = {
      httpGet: { path: 'started', port: 'web', httpHeaders: [{ name: 'X-Hook', value: 'postStart' }] },
    };
    expect(
      await runLifecycleHandler(cri, handler, target([{ name: 'web', containerPort: httpPort }]), 5),
    ).toBe(undefined);
    expect(requests.at(-1)).toMatchObject({ path: '/started', headers: { 'x-hook': 'postStart' } });
    answer = 500;
    expect(await runLifecycleHandler(cri, { httpGet: { path: '/stop', port: httpPort } }, target(), 5)).toBe(
      'HTTP lifecycle hook (/stop) for Container "app" failed with status 500',
    );
    expect(requests.at(-1)?.path).toBe('/stop');
    expect(await runLifecycleHandler(cri, { httpGet: { port: 'nope' } }, target(), 5)).toBe(
      "couldn't find port: nope in []",
    );
  });

  it('tcpSocket connects to the port, and fails when nothing listens there', async () => {
    let connections = 0;
    const tcp = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    const port = await listening(tcp);
    try {
      expect(await runLifecycleHandler(cri, { tcpSocket: { port } }, target(), 5)).toBe(undefined);
      // The server may see the connection a moment after the handler is done with it.
      await eventually(() => connections === 1);
      expect(connections).toBe(1);
    } finally {
      tcp.close();
    }
    expect(await runLifecycleHandler(cri, { tcpSocket: { port } }, target(), 5)).toBe(
      `dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
  });

  it('sleep waits its seconds, at most the time the hook has', async () => {
    let started = performance.now();
    expect(await runLifecycleHandler(cri, { sleep: { seconds: 1 } }, target(), 30)).toBe(undefined);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    started = performance.now();
    expect(await runLifecycleHandler(cri, { sleep: { seconds: 30 } }, target(), 1)).toBe(undefined);
    const capped = performance.now() - started;
    expect(capped).toBeGreaterThanOrEqual(990);
    expect(capped).toBeLessThan(15_000); // cut at the hook's 1 s, far from the 30 s asked
  });
});
