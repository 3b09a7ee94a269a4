import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL_NEWEST, kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';
import { createServingPki } from '../src/pki.ts';
import {
  eventually,
  expectStatus,
  kubeConfigFor,
  rawRequest,
  runKubectl,
  startControlPlane,
} from './helpers.ts';

const GROUP = 'example.com';

/** A CRD of `plural` serving v1 (storage) and v2, with the given conversion. */
function crd(kind: string, plural: string, conversion: object, storage = 'v1') {
  const version = (name: string, spec: object) => ({
    name,
    served: true,
    storage: name === storage,
    schema: {
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        version('v1', { size: { type: 'string' } }),
        version('v2', { replicas: { type: 'integer' } }),
      ],
      conversion,
    },
  };
}

describe('multi-version CRDs', () => {
  let cp: ControlPlane;
  let custom: CustomObjectsApi;
  let dir: string;
  let webhook: Server;
  let caBundle: string;
  const reviews: any[] = [];
  let failWith: string | undefined;
  const kubectl = (args: string[]) => runKubectl(kubectlPath(KUBECTL_NEWEST), join(dir, 'kubeconfig'), args);

  /** A conversion webhook: v1 `spec.size` (string) ⇄ v2 `spec.replicas` (integer). */
  function convert(obj: any, to: string): any {
    const out = { ...obj, apiVersion: to, spec: { ...obj.spec } };
    if (to.endsWith('/v2') && 'size' in out.spec) {
      out.spec.replicas = Number(out.spec.size);
      delete out.spec.size;
    }
    if (to.endsWith('/v1') && 'replicas' in out.spec) {
      out.spec.size = String(out.spec.replicas);
      delete out.spec.replicas;
    }
    return out;
  }

  beforeAll(async () => {
    cp = await startControlPlane();
    custom = kubeConfigFor(cp).makeApiClient(CustomObjectsApi);
    dir = mkdtempSync(join(tmpdir(), 'crd-versions-'));
    cp.writeKubeconfig(join(dir, 'kubeconfig'));
    const pki = await createServingPki('conversion-webhook-ca');
    caBundle = Buffer.from(pki.ca.cert).toString('base64');
    webhook = createServer({ cert: pki.serving.cert, key: pki.serving.key }, (req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const review = JSON.parse(text);
        reviews.push(review);
        const { uid, desiredAPIVersion, objects } = review.request;
        const response = failWith
          ? { uid, result: { status: 'Failure', message: failWith } }
          : {
              uid,
              result: { status: 'Success' },
              convertedObjects: objects.map((o: any) => convert(o, desiredAPIVersion)),
            };
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response }),
        );
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    webhook?.close();
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const createCrd = async (body: object) => {
    const created = await rawRequest(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: JSON.stringify(body),
    });
    expect(created.code).toBe(201);
  };
  const get = (plural: string, version: string, name: string) =>
    custom.getNamespacedCustomObject({ group: GROUP, version, namespace: 'default', plural, name });

  it('serves a None-converted object at every version, stores it at the storage version, and records storedVersions', async () => {
    await createCrd(crd('Widget', 'widgets', { strategy: 'None' }));
    await eventually(async () => (await rawRequest(cp, 'GET', `/apis/${GROUP}/v2/widgets`)).code === 200);
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: 'v2',
      namespace: 'default',
      plural: 'widgets',
      body: { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 2 } },
    });
    expect(await get('widgets', 'v1', 'w')).toMatchObject({
      apiVersion: `${GROUP}/v1`,
      spec: { replicas: 2 },
    });
    expect(await get('widgets', 'v2', 'w')).toMatchObject({
      apiVersion: `${GROUP}/v2`,
      spec: { replicas: 2 },
    });
    const group = await rawRequest(cp, 'GET', `/apis/${GROUP}`);
    expect(group.body.preferredVersion.version).toBe('v2');
    const stored = await rawRequest(
      cp,
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${GROUP}`,
    );
    expect(stored.body.status.storedVersions).toEqual(['v1']);
    // Moving the storage version to v2 records it; objects stored at v1 stay readable at both.
    const moved = structuredClone(stored.body);
    for (const v of moved.spec.versions) v.storage = v.name === 'v2';
    expect(
      (
        await rawRequest(
          cp,
          'PUT',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${GROUP}`,
          { body: JSON.stringify(moved) },
        )
      ).code,
    ).toBe(200);
    await eventually(async () => {
      const crdNow = await rawRequest(
        cp,
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${GROUP}`,
      );
      return JSON.stringify(crdNow.body.status.storedVersions) === '["v1","v2"]';
    });
    expect(await get('widgets', 'v2', 'w')).toMatchObject({ apiVersion: `${GROUP}/v2` });
  });

  it('converts through a webhook both ways: writes at v2 stored at v1, reads at either, lists, watches and kubectl', async () => {
    const port = (webhook.address() as AddressInfo).port;
    await createCrd(
      crd('Gadget', 'gadgets', {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle },
        },
      }),
    );
    await eventually(async () => (await rawRequest(cp, 'GET', `/apis/${GROUP}/v2/gadgets`)).code === 200);
    const events: any[] = [];
    const controller = await new Watch(kubeConfigFor(cp)).watch(
      `/apis/${GROUP}/v2/namespaces/default/gadgets`,
      {},
      (type, obj) => events.push({ type, obj }),
      () => {},
    );
    const created = await custom.createNamespacedCustomObject({
      group: GROUP,
      version: 'v2',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: `${GROUP}/v2`, kind: 'Gadget', metadata: { name: 'g' }, spec: { replicas: 3 } },
    });
    expect(created).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { replicas: 3 } });
    expect(
      reviews.some(
        (r) => r.request.desiredAPIVersion === `${GROUP}/v1` && r.request.objects[0].spec.replicas === 3,
      ),
    ).toBe(true);
    expect(await get('gadgets', 'v1', 'g')).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { size: '3' } });
    expect(await get('gadgets', 'v2', 'g')).toMatchObject({
      apiVersion: `${GROUP}/v2`,
      spec: { replicas: 3 },
    });
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      namespace: 'default',
      plural: 'gadgets',
      body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'h' }, spec: { size: '5' } },
    });
    const list: any = await custom.listNamespacedCustomObject({
      group: GROUP,
      version: 'v2',
      namespace: 'default',
      plural: 'gadgets',
    });
    expect(list.items.map((i: any) => [i.apiVersion, i.spec.replicas])).toEqual([
      [`${GROUP}/v2`, 3],
      [`${GROUP}/v2`, 5],
    ]);
    await eventually(() => events.length >= 2);
    expect(events.map((e) => [e.type, e.obj.apiVersion, e.obj.spec.replicas])).toEqual([
      ['ADDED', `${GROUP}/v2`, 3],
      ['ADDED', `${GROUP}/v2`, 5],
    ]);
    controller.abort();
    expect(
      (await kubectl(['get', `gadgets.v1.${GROUP}`, 'g', '-o', 'jsonpath={.apiVersion} {.spec.size}'])).out,
    ).toBe(`${GROUP}/v1 3`);
    expect(
      (await kubectl(['get', `gadgets.v2.${GROUP}`, 'h', '-o', 'jsonpath={.apiVersion} {.spec.replicas}']))
        .out,
    ).toBe(`${GROUP}/v2 5`);
  });

  it("answers with kube-apiserver's error texts when the conversion webhook fails", async () => {
    failWith = 'cannot convert gadgets today';
    const refused = await expectStatus(() => get('gadgets', 'v2', 'g'));
    expect(refused.code).toBe(500);
    expect(refused.message).toBe(
      `conversion webhook for ${GROUP}/v1, Kind=Gadget failed: cannot convert gadgets today`,
    );
    failWith = undefined;
    const port = (webhook.address() as AddressInfo).port;
    await new Promise<void>((resolve) => webhook.close(() => resolve()));
    webhook.closeAllConnections?.();
    const down = await expectStatus(() => get('gadgets', 'v2', 'g'));
    expect(down.code).toBe(500);
    expect(down.message).toBe(
      `conversion webhook for ${GROUP}/v1, Kind=Gadget failed: Post "https://127.0.0.1:${port}/convert": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    // Reads at the storage version need no conversion.
    expect(await get('gadgets', 'v1', 'g')).toMatchObject({ spec: { size: '3' } });
  });
});
