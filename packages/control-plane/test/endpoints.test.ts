import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, createServingPki } from '../src/index.ts';
import { eventually, rawRequest, startControlPlane } from './helpers.ts';
import { kubectlFor } from './kubectl-run.ts';

let cp: ControlPlane;
let kubectl: ReturnType<typeof kubectlFor>['kubectl'];
let dispose: () => void;

const api = (method: string, path: string, body?: object, contentType = 'application/json') =>
  rawRequest(cp, method, path, {
    ...(body ? { body: JSON.stringify(body) } : {}),
    headers: { 'content-type': contentType },
  });

/** A pod of `app` with a named container port, given an IP and a Ready condition as its kubelet would. */
async function runPod(
  ns: string,
  name: string,
  labels: Record<string, string>,
  ip: string,
  ready: boolean,
  options: { port?: number; nodeName?: string; finalizers?: string[] } = {},
): Promise<any> {
  const created = await api('POST', `/api/v1/namespaces/${ns}/pods`, {
    metadata: { name, labels, ...(options.finalizers ? { finalizers: options.finalizers } : {}) },
    spec: {
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
      containers: [
        { name: 'app', image: 'nginx', ports: [{ name: 'web', containerPort: options.port ?? 8080 }] },
      ],
    },
  });
  expect(created.code, JSON.stringify(created.body)).toBe(201);
  return setReady(ns, name, ip, ready);
}

async function setReady(ns: string, name: string, ip: string, ready: boolean): Promise<any> {
  const r = await api(
    'PATCH',
    `/api/v1/namespaces/${ns}/pods/${name}/status`,
    {
      status: {
        phase: 'Running',
        podIP: ip,
        podIPs: [{ ip }],
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      },
    },
    'application/merge-patch+json',
  );
  expect(r.code, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

const getJson = async (path: string) => (await api('GET', path)).body;
const slicesOf = async (ns: string, svc: string) =>
  (
    await getJson(
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${svc}`,
    )
  ).items;

beforeAll(async () => {
  cp = await startControlPlane({ scheduler: false });
  ({ kubectl, dispose } = kubectlFor(cp));
  await api('POST', '/api/v1/namespaces', { metadata: { name: 'shop' } });
  await api('POST', '/api/v1/nodes', {
    metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } },
  });
});
afterAll(async () => {
  await cp.stop();
  dispose();
});

describe('Endpoints and EndpointSlices of a Service with a selector', () => {
  it('list the ready and not-ready pods with the named targetPort resolved', async () => {
    const a = await runPod('shop', 'web-a', { app: 'web' }, '10.1.0.1', true, { nodeName: 'n1' });
    const b = await runPod('shop', 'web-b', { app: 'web' }, '10.1.0.2', false, { port: 9090 });
    await runPod('shop', 'other', { app: 'other' }, '10.1.0.9', true);
    const svc = await api('POST', '/api/v1/namespaces/shop/services', {
      metadata: { name: 'web', labels: { tier: 'front' } },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'web' }] },
    });
    expect(svc.code).toBe(201);
    await eventually(async () => (await api('GET', '/api/v1/namespaces/shop/endpoints/web')).code === 200);
    const ep = await getJson('/api/v1/namespaces/shop/endpoints/web');
    expect(ep.metadata.labels).toEqual({ tier: 'front' });
    expect(ep.subsets).toEqual([
      {
        addresses: [
          {
            ip: '10.1.0.1',
            nodeName: 'n1',
            targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-a', uid: a.metadata.uid },
          },
        ],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
      {
        notReadyAddresses: [
          {
            ip: '10.1.0.2',
            targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-b', uid: b.metadata.uid },
          },
        ],
        ports: [{ name: 'http', port: 9090, protocol: 'TCP' }],
      },
    ]);
    const shown = await kubectl(['get', 'endpoints', 'web', '-n', 'shop']);
    expect(shown.out).toMatch(/^NAME\s+ENDPOINTS\s+AGE\nweb\s+10\.1\.0\.1:8080\s+/);

    await eventually(async () => (await slicesOf('shop', 'web')).length === 2);
    const slices = (await slicesOf('shop', 'web')).sort(
      (x: any, y: any) => x.ports[0].port - y.ports[0].port,
    );
    for (const slice of slices) {
      expect(slice.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(slice.metadata.labels).toEqual({
        tier: 'front',
        'kubernetes.io/service-name': 'web',
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      });
      expect(slice.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: 'web',
          uid: svc.body.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(slice.addressType).toBe('IPv4');
    }
    expect(slices.map((s: any) => ({ ports: s.ports, endpoints: s.endpoints }))).toEqual([
      {
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [
          {
            addresses: ['10.1.0.1'],
            conditions: { ready: true, serving: true, terminating: false },
            targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-a', uid: a.metadata.uid },
            nodeName: 'n1',
            zone: 'zone-a',
          },
        ],
      },
      {
        ports: [{ name: 'http', port: 9090, protocol: 'TCP' }],
        endpoints: [
          {
            addresses: ['10.1.0.2'],
            conditions: { ready: false, serving: false, terminating: false },
            targetRef: { kind: 'Pod', namespace: 'shop', name: 'web-b', uid: b.metadata.uid },
          },
        ],
      },
    ]);
    const table = await kubectl([
      'get',
      'endpointslices',
      '-n',
      'shop',
      '-l',
      'kubernetes.io/service-name=web',
    ]);
    expect(table.out).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n/);
    expect(table.out).toMatch(/web-\w{5}\s+IPv4\s+8080\s+10\.1\.0\.1\s+/);
  });

  it('follow readiness and termination, and publishNotReadyAddresses', async () => {
    await runPod('shop', 'api-a', { app: 'api' }, '10.2.0.1', true, { finalizers: ['example.com/hold'] });
    await api('POST', '/api/v1/namespaces/shop/services', {
      metadata: { name: 'api' },
      spec: { selector: { app: 'api' }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    const readyIps = async () =>
      ((await getJson('/api/v1/namespaces/shop/endpoints/api'))?.subsets ?? []).flatMap((s: any) =>
        (s.addresses ?? []).map((a: any) => a.ip),
      );
    await eventually(async () => (await readyIps()).join() === '10.2.0.1');
    await setReady('shop', 'api-a', '10.2.0.1', false);
    await eventually(async () => (await readyIps()).length === 0);
    await setReady('shop', 'api-a', '10.2.0.1', true);
    await eventually(async () => (await readyIps()).join() === '10.2.0.1');

    // Terminating (held by its finalizer): gone from Endpoints, `terminating` in its slice.
    expect((await api('DELETE', '/api/v1/namespaces/shop/pods/api-a')).code).toBe(200);
    await eventually(
      async () => (await getJson('/api/v1/namespaces/shop/endpoints/api')).subsets === undefined,
    );
    await eventually(async () => {
      const [slice] = await slicesOf('shop', 'api');
      const c = slice?.endpoints?.[0]?.conditions;
      return c?.terminating === true && c.serving === true && c.ready === false;
    });
    await api(
      'PATCH',
      '/api/v1/namespaces/shop/services/api',
      { spec: { publishNotReadyAddresses: true } },
      'application/merge-patch+json',
    );
    await eventually(async () => (await readyIps()).join() === '10.2.0.1');
    await eventually(
      async () => (await slicesOf('shop', 'api'))[0]?.endpoints?.[0]?.conditions?.ready === true,
    );
    await api(
      'PATCH',
      '/api/v1/namespaces/shop/pods/api-a',
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await eventually(async () => (await readyIps()).length === 0);
    // No pod left: one empty slice remains.
    await eventually(async () => {
      const slices = await slicesOf('shop', 'api');
      return slices.length === 1 && slices[0].endpoints.length === 0 && slices[0].ports === undefined;
    });
  });

  it('go with their Service', async () => {
    await api('POST', '/api/v1/namespaces/shop/services', {
      metadata: { name: 'brief' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    await eventually(async () => (await slicesOf('shop', 'brief')).length > 0);
    await eventually(async () => (await api('GET', '/api/v1/namespaces/shop/endpoints/brief')).code === 200);
    expect((await api('DELETE', '/api/v1/namespaces/shop/services/brief')).code).toBe(200);
    await eventually(async () => (await api('GET', '/api/v1/namespaces/shop/endpoints/brief')).code === 404);
    await eventually(async () => (await slicesOf('shop', 'brief')).length === 0);
  });
});

describe('a Service without a selector', () => {
  it('keeps the Endpoints its user writes, also after its selector is removed', async () => {
    await api('POST', '/api/v1/namespaces/shop/services', {
      metadata: { name: 'outside' },
      spec: { selector: { app: 'web' }, ports: [{ port: 443, targetPort: 9443 }] },
    });
    await eventually(
      async () => (await api('GET', '/api/v1/namespaces/shop/endpoints/outside')).code === 200,
    );
    await api(
      'PATCH',
      '/api/v1/namespaces/shop/services/outside',
      { spec: { selector: null } },
      'application/merge-patch+json',
    );
    const ep = await getJson('/api/v1/namespaces/shop/endpoints/outside');
    const written = [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 19443 }] }];
    expect(
      (await api('PUT', '/api/v1/namespaces/shop/endpoints/outside', { ...ep, subsets: written })).code,
    ).toBe(200);
    // A pod the old selector picked changes: the controllers leave the Endpoints be.
    await setReady('shop', 'web-b', '10.1.0.2', true);
    await eventually(async () => {
      const slices = await slicesOf('shop', 'web');
      return slices.some((s: any) =>
        s.endpoints.some((e: any) => e.addresses[0] === '10.1.0.2' && e.conditions.ready),
      );
    });
    expect((await getJson('/api/v1/namespaces/shop/endpoints/outside')).subsets).toMatchObject(written);
  });
});

describe('admission webhooks behind a Service', () => {
  let hook: Server;
  afterAll(() => hook?.close());

  it('reach the ready pod the Endpoints controller lists, and fail closed when none is ready', async () => {
    const pki = await createServingPki('hook-ca', ['hook.shop.svc']);
    const calls: string[] = [];
    hook = createServer({ cert: pki.serving.cert, key: pki.serving.key }, (req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const { request } = JSON.parse(text);
        calls.push(request.object.metadata.name);
        const allowed = !request.object.metadata.name.startsWith('bad');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: request.uid, allowed, status: { message: 'no bad names' } },
          }),
        );
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    const port = (hook.address() as AddressInfo).port;
    // The webhook's pod: its address on the pod network is the loopback here.
    await runPod('shop', 'hook-0', { app: 'hook' }, '127.0.0.1', true, { port });
    await api('POST', '/api/v1/namespaces/shop/services', {
      metadata: { name: 'hook' },
      spec: { selector: { app: 'hook' }, ports: [{ port: 443, targetPort: 'web' }] },
    });
    await eventually(
      async () => (await getJson('/api/v1/namespaces/shop/endpoints/hook'))?.subsets?.[0]?.addresses,
    );
    const config = await api(
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      {
        metadata: { name: 'names' },
        webhooks: [
          {
            name: 'names.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            clientConfig: {
              service: { name: 'hook', namespace: 'shop', path: '/validate' },
              caBundle: Buffer.from(pki.ca.cert).toString('base64'),
            },
            rules: [
              { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
            ],
            objectSelector: { matchLabels: { checked: 'yes' } },
          },
        ],
      },
    );
    expect(config.code).toBe(201);
    const cm = (name: string) =>
      api('POST', '/api/v1/namespaces/shop/configmaps', { metadata: { name, labels: { checked: 'yes' } } });
    expect((await cm('good')).code).toBe(201);
    const denied = await cm('bad-one');
    expect({ code: denied.code, message: denied.body.message }).toEqual({
      code: 400,
      message: 'admission webhook "names.example.com" denied the request: no bad names',
    });
    expect(calls).toEqual(['good', 'bad-one']);

    await setReady('shop', 'hook-0', '127.0.0.1', false);
    await eventually(
      async () => !(await getJson('/api/v1/namespaces/shop/endpoints/hook')).subsets?.[0]?.addresses,
    );
    const down = await cm('while-down');
    expect({ code: down.code, message: down.body.message }).toEqual({
      code: 500,
      message:
        'Internal error occurred: failed calling webhook "names.example.com": failed to call webhook: Post "https://hook.shop.svc:443/validate?timeout=10s": no endpoints available for service "hook"',
    });
  });
});
