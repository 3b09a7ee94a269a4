import { freePort } from '@kruise/stack/free-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { rawRequest, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(() => cp.stop());

const create = (path: string, obj: object) => rawRequest(cp, 'POST', path, { body: JSON.stringify(obj) });
const pod = (name: string, nodeName?: string) =>
  create('/api/v1/namespaces/default/pods', {
    metadata: { name },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
  });
const log = (name: string, method = 'GET') =>
  rawRequest(cp, method, `/api/v1/namespaces/default/pods/${name}/log`);

describe('pods/log', () => {
  it('is empty for a pod on no node yet', async () => {
    await pod('pending');
    expect(await log('pending')).toMatchObject({ code: 200, body: undefined });
  });

  it('reports an unreachable kubelet with the address it tried, as kube-apiserver does', async () => {
    const port = await freePort();
    await create('/api/v1/nodes', { metadata: { name: 'quiet' } });
    await rawRequest(cp, 'PATCH', '/api/v1/nodes/quiet/status', {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({
        status: {
          addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
          daemonEndpoints: { kubeletEndpoint: { Port: port } },
        },
      }),
    });
    await pod('on-quiet', 'quiet');
    const res = await log('on-quiet');
    expect(res.code).toBe(500);
    expect(res.body.message).toBe(
      `Get "https://127.0.0.1:${port}/containerLogs/default/on-quiet/c": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
  });

  it('answers 404 when the pod or its node does not exist, and refuses writes', async () => {
    expect((await log('nobody')).body.message).toBe('pods "nobody" not found');
    await pod('on-ghost', 'ghost');
    expect(await log('on-ghost')).toMatchObject({ code: 404, body: { message: 'nodes "ghost" not found' } });
    expect((await log('on-ghost', 'PUT')).code).toBe(405);
  });
});
