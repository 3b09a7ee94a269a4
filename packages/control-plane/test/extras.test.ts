import {
  AdmissionregistrationV1Api,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, expectStatus, kubeConfigFor, rawRequest, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
let core: CoreV1Api;
let custom: CustomObjectsApi;

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        selectableFields: [{ jsonPath: '.spec.color' }],
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { color: { type: 'string', default: 'blue' }, replicas: { type: 'integer' } },
              },
              status: {
                type: 'object',
                properties: { replicas: { type: 'integer' }, selector: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

beforeAll(async () => {
  cp = await startControlPlane();
  const kc = kubeConfigFor(cp);
  core = kc.makeApiClient(CoreV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
  // Raw JSON: client-node's typed serialisers drop `default` and `x-kubernetes-*` schema keys.
  expect(
    (
      await rawRequest(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: JSON.stringify(widgetCrd),
      })
    ).code,
  ).toBe(201);
  await eventually(() => cp.registry.lookup('example.com', 'v1', 'widgets'));
});
afterAll(() => cp.stop());

const widget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec,
});

describe('custom resource features', () => {
  it('applies schema defaults and filters by selectable fields', async () => {
    const red = await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: widget('red', { color: 'red' }),
    });
    const plain = await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: widget('plain', {}),
    });
    expect(red.spec.color).toBe('red');
    expect(plain.spec.color).toBe('blue');
    const blue = await custom.listNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      fieldSelector: 'spec.color=blue',
    });
    expect(blue.items.map((w: any) => w.metadata.name)).toEqual(['plain']);
  });

  it('serves the scale subresource', async () => {
    await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      body: widget('scaled', { replicas: 1 }),
    });
    const put = await rawRequest(cp, 'PUT', '/apis/example.com/v1/namespaces/default/widgets/scaled/scale', {
      body: JSON.stringify({
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'scaled' },
        spec: { replicas: 4 },
      }),
    });
    expect(put.code).toBe(200);
    expect(put.body).toMatchObject({ kind: 'Scale', spec: { replicas: 4 }, status: { replicas: 0 } });
    const got = await custom.getNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'scaled',
    });
    expect(got.spec.replicas).toBe(4);
    const apps = kubeConfigFor(cp).makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { app: 'd' } },
          template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        },
      },
    });
    const scale = await apps.readNamespacedDeploymentScale({ name: 'd', namespace: 'default' });
    expect(scale.spec?.replicas).toBe(1);
    expect(scale.status?.selector).toBe('app=d');
  });

  it('deletes a collection by label', async () => {
    for (const [name, tier] of [
      ['a', 'x'],
      ['b', 'x'],
      ['c', 'y'],
    ]) {
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `dc-${name}`, labels: { tier: tier! } } },
      });
    }
    await core.deleteCollectionNamespacedConfigMap({ namespace: 'default', labelSelector: 'tier=x' });
    const left = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'tier' });
    expect(left.items.map((c) => c.metadata?.name)).toEqual(['dc-c']);
  });

  it('answers 405 for a verb a resource does not serve and 404 for unknown paths', async () => {
    expect((await rawRequest(cp, 'GET', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).code).toBe(
      405,
    );
    const unknown = await rawRequest(cp, 'GET', '/apis/example.com/v1/namespaces/default/gadgets');
    expect(unknown).toMatchObject({ code: 404, body: { reason: 'NotFound' } });
    const patch = await rawRequest(cp, 'PATCH', '/api/v1/namespaces/default/configmaps/dc-c', {
      body: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(patch).toMatchObject({ code: 415, body: { reason: 'UnsupportedMediaType' } });
  });

  it('prints core and events.k8s.io Events with the same columns, as one printer', async () => {
    const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const json = { 'content-type': 'application/json' };
    const regarding = { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'ev-pod' };
    const created = await rawRequest(cp, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      body: JSON.stringify({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'ev-v1' },
        eventTime: new Date().toISOString().replace('Z', '000Z'),
        reportingController: 'example.com/test',
        reportingInstance: 'test-1',
        action: 'Testing',
        type: 'Warning',
        reason: 'Failed',
        regarding,
        note: 'the note',
      }),
      headers: json,
    });
    expect(created.code).toBe(201);
    await core.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'ev-core' },
        involvedObject: regarding,
        type: 'Normal',
        reason: 'Started',
        message: 'the message',
        lastTimestamp: new Date(),
      },
    });
    const names = ['Name', 'Last Seen', 'Type', 'Reason', 'Object', 'Message'];
    const v1 = await rawRequest(cp, 'GET', '/apis/events.k8s.io/v1/namespaces/default/events/ev-v1', {
      headers: table,
    });
    expect(v1.body.columnDefinitions.map((c: any) => c.name)).toEqual(names);
    expect(v1.body.rows[0].cells.slice(2)).toEqual(['Warning', 'Failed', 'pod/ev-pod', 'the note']);
    expect(v1.body.rows[0].cells[1]).toMatch(/^\d+s$/);
    const v = await rawRequest(cp, 'GET', '/api/v1/namespaces/default/events/ev-core', { headers: table });
    expect(v.body.columnDefinitions.map((c: any) => c.name)).toEqual(names);
    expect(v.body.rows[0].cells.slice(2)).toEqual(['Normal', 'Started', 'pod/ev-pod', 'the message']);
  });

  it('refuses Secret data that is not base64 as a decoding error (400), storing nothing', async () => {
    const bad = await rawRequest(cp, 'POST', '/api/v1/namespaces/default/secrets', {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'b64' },
        data: { a: 'not base64!!' },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(bad).toMatchObject({
      code: 400,
      body: {
        reason: 'BadRequest',
        message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
      },
    });
    expect((await rawRequest(cp, 'GET', '/api/v1/namespaces/default/secrets/b64')).code).toBe(404);
  });
});

describe('RBAC details', () => {
  it('honours resourceNames and nonResourceURLs', async () => {
    const kc = kubeConfigFor(cp);
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({
      namespace: 'default',
      body: { metadata: { name: 'narrow' } },
    });
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'narrow' },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], resourceNames: ['dc-c'], verbs: ['get'] },
          { nonResourceURLs: ['/metrics'], verbs: ['get'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'narrow' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'narrow' },
        subjects: [{ kind: 'ServiceAccount', name: 'narrow', namespace: 'default' }],
      },
    });
    const token = (
      await core.createNamespacedServiceAccountToken({
        name: 'narrow',
        namespace: 'default',
        body: { spec: { audiences: [] } },
      })
    ).status!.token!;
    const sa = kubeConfigFor(cp, token).makeApiClient(CoreV1Api);
    await sa.readNamespacedConfigMap({ name: 'dc-c', namespace: 'default' });
    expect((await expectStatus(() => sa.listNamespacedConfigMap({ namespace: 'default' }))).code).toBe(403);
    const authz = kubeConfigFor(cp, token).makeApiClient(AuthorizationV1Api);
    const can = async (path: string) =>
      (
        await authz.createSelfSubjectAccessReview({
          body: { spec: { nonResourceAttributes: { path, verb: 'get' } } },
        })
      ).status?.allowed;
    expect(await can('/metrics')).toBe(true);
    expect(await can('/debug')).toBe(false);
  });
});

describe('admission details', () => {
  it('skips webhooks outside their namespaceSelector and refuses dry runs for webhooks with side effects', async () => {
    const kc = kubeConfigFor(cp);
    await core.createNamespace({ body: { metadata: { name: 'guarded', labels: { guard: 'on' } } } });
    await kc.makeApiClient(AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
      body: {
        metadata: { name: 'guard' },
        webhooks: [
          {
            name: 'guard.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'Some',
            failurePolicy: 'Fail',
            namespaceSelector: { matchLabels: { guard: 'on' } },
            clientConfig: { url: 'https://127.0.0.1:1/never' },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }],
          },
        ],
      },
    });
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'free' } } });
    const guarded = await expectStatus(() =>
      core.createNamespacedSecret({ namespace: 'guarded', body: { metadata: { name: 's' } } }),
    );
    expect(guarded.code).toBe(500);
    expect(guarded.message).toContain('failed calling webhook "guard.example.com"');
    const dry = await expectStatus(() =>
      core.createNamespacedSecret({ namespace: 'guarded', body: { metadata: { name: 's' } }, dryRun: 'All' }),
    );
    expect(dry.code).toBe(400);
    expect(dry.message).toContain(
      'admission webhook "guard.example.com" has no sideEffects or sideEffects is not None or NoneOnDryRun',
    );
  });
});
