import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allowed,
  createWebhookCertificates,
  denied,
  jsonPatchDiff,
  type KubeClient,
  patched,
  Resources,
  WebhookServer,
} from '../src/index.ts';
import { pointService, postTo, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
let server: WebhookServer;
let port: number;
let ca: string;

beforeAll(async () => {
  ({ cp, client } = await startEnv());
  const certs = await createWebhookCertificates(['hooks.default.svc'], 3_600_000, 3_600_000);
  ca = certs.caCert;
  server = new WebhookServer();
  server.register('/mutate', (req) => {
    const obj = req.object;
    return patched(obj, {
      ...obj,
      metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, defaulted: 'true' } },
    });
  });
  server.register('/validate', (req) =>
    req.object?.metadata?.name?.startsWith('bad') ? denied(422, 'spec.x is invalid') : allowed(),
  );
  server.register('/boom', () => {
    throw new Error('handler bug');
  });
  port = await server.listen('127.0.0.1', 0, certs);
  await pointService(client, 'default', 'hooks', port);
  const hook = (name: string, path: string) => ({
    name,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    clientConfig: {
      service: { name: 'hooks', namespace: 'default', path },
      caBundle: Buffer.from(ca).toString('base64'),
    },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  });
  await client.create(Resources.MutatingWebhookConfiguration, {
    metadata: { name: 'm' },
    webhooks: [hook('m.example.com', '/mutate')],
  });
  await client.create(Resources.ValidatingWebhookConfiguration, {
    metadata: { name: 'v' },
    webhooks: [hook('v.example.com', '/validate')],
  });
});
afterAll(async () => {
  await cp.stop();
  await server.close();
});

/** POSTs raw bytes to the webhook server. */
const post = (path: string, body: string, contentType?: string) =>
  postTo({ port, ca, servername: 'hooks.default.svc' }, path, body, contentType);

describe('WebhookServer', () => {
  it('mutates and validates through the API server', async () => {
    const cm = await client.create(Resources.ConfigMap, {
      metadata: { name: 'good', namespace: 'default', labels: { a: 'b' } },
    });
    expect(cm.metadata?.labels).toEqual({ a: 'b', defaulted: 'true' });
    const err = await client
      .create(Resources.ConfigMap, { metadata: { name: 'bad-one', namespace: 'default' } })
      .catch((e) => e);
    expect(err.code).toBe(422);
    expect(err.message).toBe('admission webhook "v.example.com" denied the request: spec.x is invalid');
  });

  it("keeps the API server's connection through a pause longer than Node's 5 s keep-alive", async () => {
    await client.create(Resources.ConfigMap, { metadata: { name: 'before-pause', namespace: 'default' } });
    const handshakes = server.connectionCount;
    expect(handshakes).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 5_500));
    await client.create(Resources.ConfigMap, { metadata: { name: 'after-pause', namespace: 'default' } });
    // No new TLS handshake: the call after the pause rides the connection of the one before.
    expect(server.connectionCount).toBe(handshakes);
  }, 20_000);

  it('answers malformed requests with 400 and keeps serving', async () => {
    expect((await post('/validate', '{not json')).code).toBe(400);
    expect((await post('/validate', '{"kind":"Pod"}')).code).toBe(400);
    expect((await post('/validate', '{}', 'text/plain')).code).toBe(400);
    expect((await post('/nowhere', '{}')).code).toBe(404);
    const big = await post('/validate', `{"kind":"AdmissionReview","pad":"${'x'.repeat(8 * 1024 * 1024)}"}`);
    expect(big.code).toBe(400);
    expect(big.body).toContain('request body too large');
    const ok = await post(
      '/validate',
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u1', object: { metadata: { name: 'x' } } },
      }),
    );
    expect(ok.code).toBe(200);
    expect(JSON.parse(ok.body).response).toEqual({ allowed: true, uid: 'u1' });
  });

  it('turns a handler exception into a denial with 500 for that request only', async () => {
    const res = await post('/boom', JSON.stringify({ kind: 'AdmissionReview', request: { uid: 'u2' } }));
    expect(JSON.parse(res.body).response).toMatchObject({ uid: 'u2', allowed: false, status: { code: 500 } });
  });
});

describe('jsonPatchDiff', () => {
  it('produces the operations that turn one object into another', () => {
    expect(
      jsonPatchDiff({ a: 1, b: { c: 2, 'd/e': 3 }, l: [1] }, { a: 1, b: { c: 5 }, l: [1, 2], n: null }),
    ).toEqual([
      { op: 'remove', path: '/b/d~1e' },
      { op: 'replace', path: '/b/c', value: 5 },
      { op: 'replace', path: '/l', value: [1, 2] },
      { op: 'add', path: '/n', value: null },
    ]);
    expect(jsonPatchDiff({ a: 1 }, { a: 1 })).toEqual([]);
  });
});
