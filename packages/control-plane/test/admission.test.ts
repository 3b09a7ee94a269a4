import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AdmissionregistrationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, createServingPki } from '../src/index.ts';
import { expectStatus, kubeConfigFor, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
let core: CoreV1Api;
let admission: AdmissionregistrationV1Api;
let hook: Server;
let port: number;
let caBundle: string;
const reviews: any[] = [];

/** A webhook server: /mutate adds a label, /deny refuses names starting with "bad". */
async function startWebhook(): Promise<void> {
  const pki = await createServingPki('webhook-ca', ['hook.default.svc']);
  caBundle = Buffer.from(pki.ca.cert).toString('base64');
  hook = createServer({ cert: pki.serving.cert, key: pki.serving.key }, (req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const review = JSON.parse(text);
      reviews.push(review);
      const request = review.request;
      let response: any = { uid: request.uid, allowed: true };
      if (req.url?.startsWith('/mutate')) {
        const patch = [
          {
            op: 'add',
            path: '/metadata/labels',
            value: { ...request.object.metadata.labels, mutated: 'yes' },
          },
        ];
        response = {
          ...response,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
        };
      } else if (request.object?.metadata?.name?.startsWith('bad')) {
        response = {
          uid: request.uid,
          allowed: false,
          status: { code: 422, reason: 'Invalid', message: 'names may not start with bad' },
        };
      }
      answer(res, response);
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  port = (hook.address() as AddressInfo).port;
}

const rules = [
  { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
];

/** One webhook of a configuration on config maps: AdmissionReview v1, no side effects. */
const webhook = (name: string, clientConfig: object, extra: object = {}) => ({
  name,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  clientConfig,
  rules,
  ...extra,
});

/** Answers an AdmissionReview. */
function answer(res: ServerResponse, response: object): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
}

beforeAll(async () => {
  cp = await startControlPlane();
  const kc = kubeConfigFor(cp);
  core = kc.makeApiClient(CoreV1Api);
  admission = kc.makeApiClient(AdmissionregistrationV1Api);
  await startWebhook();
  await core.createNamespacedService({
    namespace: 'default',
    body: { metadata: { name: 'hook' }, spec: { ports: [{ port: 443, targetPort: 9443 }] } },
  });
  await core.createNamespacedEndpoints({
    namespace: 'default',
    body: { metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] },
  });
  await admission.createMutatingWebhookConfiguration({
    body: {
      metadata: { name: 'mutate' },
      webhooks: [
        webhook(
          'mutate.example.com',
          { service: { name: 'hook', namespace: 'default', path: '/mutate' }, caBundle },
          { objectSelector: { matchLabels: { webhook: 'on' } } },
        ),
      ],
    },
  });
  await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name: 'validate' },
      webhooks: [
        webhook(
          'validate.example.com',
          { url: `https://127.0.0.1:${port}/validate`, caBundle },
          { failurePolicy: 'Fail' },
        ),
      ],
    },
  });
});
afterAll(async () => {
  await cp.stop();
  hook.close();
});

describe('admission webhooks', () => {
  it('applies a mutating webhook reached through Service Endpoints', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'm1', labels: { webhook: 'on' } } },
    });
    expect(cm.metadata?.labels).toEqual({ webhook: 'on', mutated: 'yes' });
    const review = reviews.find((r) => r.request.name === 'm1' && r.request.operation === 'CREATE');
    expect(review.request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      namespace: 'default',
      userInfo: { username: 'kubernetes-admin' },
    });
  });

  it('skips webhooks whose object selector does not match', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'plain' } },
    });
    expect(cm.metadata?.labels).toBeUndefined();
  });

  it('passes a denial to the client as kube-apiserver does', async () => {
    const denied = await expectStatus(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'bad-1' } } }),
    );
    expect(denied).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'admission webhook "validate.example.com" denied the request: names may not start with bad',
    });
    expect(
      (await expectStatus(() => core.readNamespacedConfigMap({ name: 'bad-1', namespace: 'default' }))).code,
    ).toBe(404);
  });

  it('sends a review again on a new connection when the webhook closed the kept one as it went out', async () => {
    // A webhook server that drops its connection when a second review arrives on it, as a server
    // closing an idle connection does when the API server's request crosses the close.
    const pki = await createServingPki('flaky-ca', ['127.0.0.1']);
    const perSocket = new Map<unknown, number>();
    let answered = 0;
    let dropped = 0;
    const flaky = createServer({ cert: pki.serving.cert, key: pki.serving.key }, (req, res) => {
      const seen = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, seen);
      if (seen > 1) {
        dropped++;
        req.socket.destroy();
        return;
      }
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        answered++;
        answer(res, { uid: JSON.parse(text).request.uid, allowed: true });
      });
    });
    flaky.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', () => r()));
    const flakyPort = (flaky.address() as AddressInfo).port;
    await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: 'flaky' },
        webhooks: [
          webhook(
            'flaky.example.com',
            {
              url: `https://127.0.0.1:${flakyPort}/validate`,
              caBundle: Buffer.from(pki.ca.cert).toString('base64'),
            },
            { failurePolicy: 'Fail', objectSelector: { matchLabels: { flaky: 'on' } } },
          ),
        ],
      },
    });
    try {
      for (const name of ['f1', 'f2', 'f3']) {
        await core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name, labels: { flaky: 'on' } } },
        });
      }
      expect({ answered, dropped, connections: perSocket.size }).toEqual({
        answered: 3,
        dropped: 2,
        connections: 3,
      });
    } finally {
      await admission.deleteValidatingWebhookConfiguration({ name: 'flaky' });
      flaky.close();
      flaky.closeAllConnections();
    }
  });

  it('refuses writes while a Fail webhook is unreachable, and stores nothing', async () => {
    hook.close();
    hook.closeAllConnections();
    const refused = await expectStatus(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'down' } } }),
    );
    expect(refused.code).toBe(500);
    expect(refused.message).toBe(
      `Internal error occurred: failed calling webhook "validate.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/validate": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    expect(
      (await expectStatus(() => core.readNamespacedConfigMap({ name: 'down', namespace: 'default' }))).code,
    ).toBe(404);
  });
});
