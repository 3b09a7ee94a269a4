import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowed, CertManager, type KubeClient, Resources, serialOf, WebhookServer } from '../src/index.ts';
import { eventually, pointService, startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
beforeAll(async () => {
  ({ cp, client } = await startEnv());
  await client.create(Resources.Namespace, { metadata: { name: 'kruise-system' } });
});
afterAll(() => cp.stop());

const webhookConfig = (port: number) => ({
  metadata: { name: 'kruise-validating-webhook-configuration' },
  webhooks: [
    {
      name: 'v.kruise.io',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      clientConfig: {
        service: { name: 'kruise-webhook-service', namespace: 'kruise-system', path: '/validate' },
      },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    },
  ],
  port,
});

describe('CertManager', () => {
  it('issues certificates into the Secret, patches caBundle, and rotates an expiring certificate without breaking clients', async () => {
    const server = new WebhookServer();
    server.register('/validate', () => allowed());
    const manager = new CertManager(client, {
      namespace: 'kruise-system',
      serviceName: 'kruise-webhook-service',
      validatingConfigurations: ['kruise-validating-webhook-configuration'],
      certValidityMs: 4000,
      caValidityMs: 4000,
      renewBeforeMs: 2500,
      resyncMs: 300,
      onCertificates: (c) => server.setCertificate(c),
    });
    const first = await manager.sync();
    const port = await server.listen('127.0.0.1', 0, first);
    await pointService(client, 'kruise-system', 'kruise-webhook-service', port);
    const { port: _p, ...config } = webhookConfig(port);
    await client.create(Resources.ValidatingWebhookConfiguration, config);
    await manager.start();
    const secret = await client.get(Resources.Secret, 'kruise-system', 'kruise-webhook-certs');
    expect(Object.keys(secret.data).sort()).toEqual([
      'ca-cert.pem',
      'ca-key.pem',
      'cert.pem',
      'key.pem',
      'tls.crt',
      'tls.key',
    ]);
    const stored = await client.get(
      Resources.ValidatingWebhookConfiguration,
      undefined,
      'kruise-validating-webhook-configuration',
    );
    expect(stored.webhooks[0].clientConfig.caBundle).toBe(Buffer.from(first.caCert).toString('base64'));
    await client.create(Resources.ConfigMap, { metadata: { name: 'through-hook-1', namespace: 'default' } });
    await eventually(
      () => manager.certificates && serialOf(manager.certificates.cert) !== serialOf(first.cert),
      6000,
    );
    await eventually(async () => {
      const c = await client.get(
        Resources.ValidatingWebhookConfiguration,
        undefined,
        'kruise-validating-webhook-configuration',
      );
      return (
        c.webhooks[0].clientConfig.caBundle === Buffer.from(manager.certificates!.caCert).toString('base64')
      );
    });
    await client.create(Resources.ConfigMap, { metadata: { name: 'through-hook-2', namespace: 'default' } });
    expect(server.served.get('/validate')).toBeGreaterThanOrEqual(2);
    await manager.stop();
    await server.close();
  });

  it('writes the CA bundle into conversion webhooks of the group CRDs', async () => {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: {
        metadata: { name: 'things.apps.kruise.io' },
        spec: {
          group: 'apps.kruise.io',
          scope: 'Namespaced',
          names: { plural: 'things', kind: 'Thing' },
          versions: [
            {
              name: 'v1alpha1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
          conversion: {
            strategy: 'Webhook',
            webhook: {
              conversionReviewVersions: ['v1'],
              clientConfig: {
                service: { name: 'kruise-webhook-service', namespace: 'kruise-system', path: '/convert' },
              },
            },
          },
        },
      },
    });
    const manager = new CertManager(client, {
      namespace: 'kruise-system',
      serviceName: 'conv-service',
      secretName: 'conv-certs',
      crdGroup: 'apps.kruise.io',
    });
    const certs = await manager.sync();
    const clientConfig = async () =>
      (await client.get(Resources.CustomResourceDefinition, undefined, 'things.apps.kruise.io')).spec
        .conversion.webhook.clientConfig;
    // the CA bundle, and the Service whose name the certificate carries (the path stays)
    expect(await clientConfig()).toEqual({
      caBundle: Buffer.from(certs.caCert).toString('base64'),
      service: { name: 'conv-service', namespace: 'kruise-system', path: '/convert' },
    });
    // new certificates (here: the Secret lost) reach the CRD at the next pass
    await client.delete(Resources.Secret, 'kruise-system', 'conv-certs');
    const renewed = await manager.sync();
    expect(renewed.caCert).not.toBe(certs.caCert);
    expect((await clientConfig()).caBundle).toBe(Buffer.from(renewed.caCert).toString('base64'));
  });

  it('lets several replicas converge on one certificate', async () => {
    const make = () =>
      new CertManager(client, {
        namespace: 'kruise-system',
        serviceName: 'other-service',
        secretName: 'shared-certs',
      });
    const results = await Promise.all([make().sync(), make().sync(), make().sync()]);
    expect(new Set(results.map((r) => r.cert)).size).toBe(1);
    const secret = await client.get(Resources.Secret, 'kruise-system', 'shared-certs');
    expect(Buffer.from(secret.data['tls.crt'], 'base64').toString()).toBe(results[0]!.cert);
  });
});
