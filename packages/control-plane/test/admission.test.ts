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
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  port = (hook.address() as AddressInfo).port;
}

const rules = [
  { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
];

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
        {
          name: 'mutate.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: { service: { name: 'hook', namespace: 'default', path: '/mutate' }, caBundle },
          rules,
          objectSelector: { matchLabels: { webhook: 'on' } },
        },
      ],
    },
  });
  await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name: 'validate' },
      webhooks: [
        {
          name: 'validate.example.com',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle },
          rules,
        },
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
