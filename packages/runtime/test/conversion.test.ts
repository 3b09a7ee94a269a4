import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConversionError,
  ConverterRegistry,
  type KubeClient,
  type KubeObject,
  Resources,
} from '../src/index.ts';
import { eventually, postTo, startConversionWebhook, startEnv } from './env.ts';

/**
 * A Widget of example group apps.kruise.io: stored at v1 (the hub) with `spec.size` a number,
 * served at v1alpha1 with `spec.size` a string and at v1alpha2 with `spec.count`.
 */
const registry = () =>
  new ConverterRegistry().register({
    group: 'apps.kruise.io',
    kind: 'Widget',
    hub: 'v1',
    spokes: {
      v1alpha1: {
        toHub: (o) => {
          if (Number.isNaN(Number(o.spec.size)))
            throw new ConversionError(`size "${o.spec.size}" is not a number`);
          return { ...o, spec: { size: Number(o.spec.size) } };
        },
        fromHub: (o) => ({ ...o, spec: { size: String(o.spec.size) } }),
      },
      v1alpha2: {
        toHub: (o) => ({ ...o, spec: { size: o.spec.count } }),
        fromHub: (o) => ({ ...o, spec: { count: o.spec.size } }),
      },
    },
  });
const widget = (version: string, spec: object): KubeObject => ({
  apiVersion: `apps.kruise.io/${version}`,
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', labels: { a: 'b' } },
  spec,
});

describe('ConverterRegistry', () => {
  const r = registry();

  it('converts a spoke to the hub, the hub to a spoke, and a spoke to a spoke through the hub', () => {
    expect(r.convert(widget('v1alpha1', { size: '3' }), 'apps.kruise.io/v1')).toEqual(
      widget('v1', { size: 3 }),
    );
    expect(r.convert(widget('v1', { size: 3 }), 'apps.kruise.io/v1alpha2')).toEqual(
      widget('v1alpha2', { count: 3 }),
    );
    expect(r.convert(widget('v1alpha2', { count: 4 }), 'apps.kruise.io/v1alpha1')).toEqual(
      widget('v1alpha1', { size: '4' }),
    );
    expect(r.convert(widget('v1alpha1', { size: '5' }), 'apps.kruise.io/v1alpha1')).toEqual(
      widget('v1alpha1', { size: '5' }),
    );
  });

  it('leaves the objects it is given unchanged', () => {
    const input = widget('v1alpha1', { size: '3' });
    const copy = structuredClone(input);
    r.review({ uid: 'u', desiredAPIVersion: 'apps.kruise.io/v1', objects: [input] });
    expect(input).toEqual(copy);
  });

  it('fails a review with a message naming what it cannot convert', () => {
    const failure = (desiredAPIVersion: string, objects: any) =>
      r.review({ uid: 'u', desiredAPIVersion, objects }).result as { status: string; message?: string };
    const ok = widget('v1alpha1', { size: '1' });
    expect(failure('apps.kruise.io/v1', [ok, { ...ok, kind: 'Gadget' }])).toEqual({
      status: 'Failure',
      message: 'object 1: no conversion is registered for kind Gadget.apps.kruise.io',
    });
    expect(failure('apps.kruise.io/v2', [ok])).toEqual({
      status: 'Failure',
      message: 'object 0: Widget.apps.kruise.io is not served at v2; it is served at v1, v1alpha1, v1alpha2',
    });
    expect(failure('apps.kruise.io/v1', [widget('v9', {})]).message).toBe(
      'object 0: Widget.apps.kruise.io is not served at v9; it is served at v1, v1alpha1, v1alpha2',
    );
    expect(failure('example.com/v1', [ok]).message).toBe(
      'object 0: cannot convert Widget.apps.kruise.io to example.com/v1: another API group',
    );
    expect(failure('apps.kruise.io/v1', [{ kind: 'Widget' }]).message).toBe(
      'object 0: the object has no apiVersion or kind',
    );
    expect(failure('apps.kruise.io/v1', [7]).message).toBe('object 0: the object is not a JSON object');
    expect(failure('apps.kruise.io/v1', 'nope').message).toBe('the request has no list of objects');
    expect(failure('', [ok]).message).toBe('the request has no desiredAPIVersion');
    const broken = new ConverterRegistry().register({
      group: 'apps.kruise.io',
      kind: 'Widget',
      hub: 'v1',
      spokes: {
        v1alpha1: {
          toHub: (o) => o.spec.missing.field,
          fromHub: (o) => o,
        },
      },
    });
    expect(broken.review({ uid: 'u', desiredAPIVersion: 'apps.kruise.io/v1', objects: [ok] }).result).toEqual(
      {
        status: 'Failure',
        message: expect.stringMatching(/^object 0: internal error: .*undefined/),
      },
    );
  });

  it('takes one registration per kind, and no hub among the spokes', () => {
    expect(() =>
      registry().register({ group: 'apps.kruise.io', kind: 'Widget', hub: 'v1', spokes: {} }),
    ).toThrow('a conversion for Widget.apps.kruise.io is already registered');
    expect(() =>
      new ConverterRegistry().register({
        group: 'g',
        kind: 'K',
        hub: 'v1',
        spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } },
      }),
    ).toThrow('K.g: the hub v1 is not a spoke');
  });
});

describe('the conversion webhook through the API server', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let webhook: Awaited<ReturnType<typeof startConversionWebhook>>;

  /** A multi-version CRD as deploy/ has it: pointed at the webhook Service, without a caBundle. */
  const widgets = {
    metadata: { name: 'widgets.apps.kruise.io' },
    spec: {
      group: 'apps.kruise.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: ['v1alpha1', 'v1alpha2', 'v1'].map((name) => ({
        name,
        served: true,
        storage: name === 'v1',
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1', 'v1beta1'],
          clientConfig: {
            service: { namespace: 'kruise-system', name: 'kruise-webhook-service', path: '/convert' },
          },
        },
      },
    },
  };
  const createCrd = () =>
    client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: widgets });
  const path = (version: string, name = '') =>
    `/apis/apps.kruise.io/${version}/namespaces/default/widgets${name ? `/${name}` : ''}`;
  const caBundleOf = async () =>
    (await client.get(Resources.CustomResourceDefinition, undefined, 'widgets.apps.kruise.io')).spec
      .conversion.webhook.clientConfig.caBundle;

  const post = (route: string, body: string) =>
    postTo(
      {
        port: webhook.port,
        ca: webhook.certs.certificates!.caCert,
        servername: 'kruise-webhook-service.kruise-system.svc',
      },
      route,
      body,
    );

  beforeAll(async () => {
    ({ cp, client } = await startEnv());
    await client.create(Resources.Namespace, { metadata: { name: 'kruise-system' } });
    await createCrd();
    const conversions = registry();
    // resync an hour away: what these tests see happens through the CRD watch
    webhook = await startConversionWebhook(client, (req) => conversions.review(req), 3_600_000);
  });
  afterAll(async () => {
    await webhook?.stop();
    await cp?.stop();
  });

  it('writes the CA bundle into the CRD at start, and objects convert both ways', async () => {
    expect(await caBundleOf()).toBe(Buffer.from(webhook.certs.certificates!.caCert).toString('base64'));
    await client.request('POST', path('v1alpha1'), { body: widget('v1alpha1', { size: '3' }) });
    expect(await client.request('GET', path('v1', 'w'))).toMatchObject({
      apiVersion: 'apps.kruise.io/v1',
      spec: { size: 3 },
    });
    expect(await client.request('GET', path('v1alpha2', 'w'))).toMatchObject({
      apiVersion: 'apps.kruise.io/v1alpha2',
      metadata: { labels: { a: 'b' } },
      spec: { count: 3 },
    });
    expect(webhook.server.served.get('/convert')).toBeGreaterThanOrEqual(2);
  });

  it('puts the CA bundle back at once when the CRD is applied again without it', async () => {
    const crd = await client.get(Resources.CustomResourceDefinition, undefined, 'widgets.apps.kruise.io');
    const replaced = await client.request(
      'PUT',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.apps.kruise.io',
      {
        body: {
          ...widgets,
          metadata: { ...widgets.metadata, resourceVersion: crd.metadata?.resourceVersion },
        },
      },
    );
    expect(replaced.spec.conversion.webhook.clientConfig.caBundle).toBeUndefined();
    await eventually(async () => (await caBundleOf()) === crd.spec.conversion.webhook.clientConfig.caBundle, {
      what: 'the caBundle back in the CRD (the periodic pass is an hour away)',
    });
    expect(await client.request('GET', path('v1alpha1', 'w'))).toMatchObject({ spec: { size: '3' } });
  });

  it('fails an object it cannot convert with a message the API server passes on', async () => {
    const err = await client
      .request('POST', path('v1alpha1'), {
        body: { ...widget('v1alpha1', { size: 'x' }), metadata: { name: 'odd' } },
      })
      .catch((e) => e);
    expect(err.code).toBe(500);
    expect(err.message).toBe(
      'conversion webhook for apps.kruise.io/v1alpha1, Kind=Widget failed: object 0: size "x" is not a number',
    );
  });

  it('answers ConversionReview v1beta1 at v1beta1, and malformed bodies with 400', async () => {
    const review = (apiVersion: string) =>
      JSON.stringify({
        apiVersion,
        kind: 'ConversionReview',
        request: {
          uid: 'u1',
          desiredAPIVersion: 'apps.kruise.io/v1alpha1',
          objects: [widget('v1', { size: 2 })],
        },
      });
    for (const apiVersion of ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1']) {
      const res = await post('/convert', review(apiVersion));
      expect(res.code).toBe(200);
      expect(JSON.parse(res.body)).toEqual({
        apiVersion,
        kind: 'ConversionReview',
        response: {
          uid: 'u1',
          convertedObjects: [widget('v1alpha1', { size: '2' })],
          result: { status: 'Success' },
        },
      });
    }
    expect((await post('/convert', '{not json')).code).toBe(400);
    expect((await post('/convert', JSON.stringify({ kind: 'ConversionReview' }))).code).toBe(400);
    expect(
      (await post('/convert', JSON.stringify({ kind: 'AdmissionReview', request: { uid: 'x' } }))).code,
    ).toBe(400);
    const unknown = await post(
      '/convert',
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: {
          uid: 'u2',
          desiredAPIVersion: 'apps.kruise.io/v1',
          objects: [{ ...widget('v1', {}), kind: 'Gizmo' }],
        },
      }),
    );
    expect(JSON.parse(unknown.body).response).toEqual({
      uid: 'u2',
      convertedObjects: [],
      result: {
        status: 'Failure',
        message: 'object 0: no conversion is registered for kind Gizmo.apps.kruise.io',
      },
    });
  });
});
