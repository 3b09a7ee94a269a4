import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ControlPlane } from '../src/index.ts';
import { eventually, expectStatus, kubeConfigFor, rawRequest, startControlPlane } from './helpers.ts';

const crdDir = join(dirname(fileURLToPath(import.meta.url)), '../../../deploy/crds');
const group = 'apps.kruise.io';
const version = 'v1alpha1';

let cp: ControlPlane;
let custom: CustomObjectsApi;

beforeAll(async () => {
  cp = await startControlPlane();
  const kc = kubeConfigFor(cp);
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
  // Raw JSON: client-node's typed serialisers drop `default` and `x-kubernetes-*` schema keys.
  for (const file of readdirSync(crdDir)) {
    const body = JSON.stringify(parse(readFileSync(join(crdDir, file), 'utf8')));
    expect(
      (await rawRequest(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body }))
        .code,
    ).toBe(201);
  }
  await eventually(async () => {
    const crd = await ext.readCustomResourceDefinition({ name: `imagepulljobs.${group}` });
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });
});
afterAll(() => cp.stop());

const job = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${group}/${version}`,
  kind: 'ImagePullJob',
  metadata: { name },
  spec,
});

describe('custom resources from deploy/crds', () => {
  it('serves every Kruise kind once its CRD is established', async () => {
    const created = await custom.createNamespacedCustomObject({
      group,
      version,
      namespace: 'default',
      plural: 'imagepulljobs',
      body: job('ok', { image: 'nginx', completionPolicy: { type: 'Always' } }),
    });
    expect(created.metadata.generation).toBe(1);
    const ni = await custom.createClusterCustomObject({
      group,
      version,
      plural: 'nodeimages',
      body: {
        apiVersion: `${group}/${version}`,
        kind: 'NodeImage',
        metadata: { name: 'node-1' },
        spec: { images: { nginx: { tags: [{ tag: 'latest' }] } } },
      },
    });
    expect(ni.metadata.namespace).toBeUndefined();
  });

  it('lists every invalid field in one Invalid status', async () => {
    const bad = await expectStatus(() =>
      custom.createNamespacedCustomObject({
        group,
        version,
        namespace: 'default',
        plural: 'imagepulljobs',
        body: job('bad', { parallelism: true, pullPolicy: { timeoutSeconds: 'x' }, completionPolicy: {} }),
      }),
    );
    expect(bad.code).toBe(422);
    expect(bad.message).toBe(
      'ImagePullJob.apps.kruise.io "bad" is invalid: [spec.image: Required value, spec.parallelism: Invalid value: "boolean": spec.parallelism in body must be of type integer,string: "boolean", spec.pullPolicy.timeoutSeconds: Invalid value: "string": spec.pullPolicy.timeoutSeconds in body must be of type integer: "string"]',
    );
    expect(bad.details.causes.map((c: any) => c.field)).toEqual([
      'spec.image',
      'spec.parallelism',
      'spec.pullPolicy.timeoutSeconds',
    ]);
  });

  it('prunes unknown fields, and refuses them under fieldValidation=Strict', async () => {
    const created = await custom.createNamespacedCustomObject({
      group,
      version,
      namespace: 'default',
      plural: 'imagepulljobs',
      body: job('pruned', { image: 'nginx', completionPolicy: {}, bogus: 1 }),
    });
    expect(created.spec.bogus).toBeUndefined();
    const strict = await expectStatus(() =>
      custom.createNamespacedCustomObject({
        group,
        version,
        namespace: 'default',
        plural: 'imagepulljobs',
        body: job('strict', { image: 'nginx', completionPolicy: {}, bogus: 1 }),
        fieldValidation: 'Strict',
      }),
    );
    expect(strict.code).toBe(400);
    expect(strict.message).toContain('strict decoding error: unknown field "spec.bogus"');
  });

  it('keeps status on the status subresource and requires a resourceVersion on update', async () => {
    const status = await custom.patchNamespacedCustomObjectStatus(
      {
        group,
        version,
        namespace: 'default',
        plural: 'imagepulljobs',
        name: 'ok',
        body: { status: { desired: 2, active: 2 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(status.status).toEqual({ desired: 2, active: 2 });
    const current = await custom.getNamespacedCustomObject({
      group,
      version,
      namespace: 'default',
      plural: 'imagepulljobs',
      name: 'ok',
    });
    const replaced = await custom.replaceNamespacedCustomObject({
      group,
      version,
      namespace: 'default',
      plural: 'imagepulljobs',
      name: 'ok',
      body: { ...current, spec: { ...current.spec, parallelism: 3 }, status: { desired: 0 } },
    });
    expect(replaced.status).toEqual({ desired: 2, active: 2 });
    expect(replaced.metadata.generation).toBe(2);
    const { resourceVersion: _rv, ...metadata } = current.metadata;
    const noRV = await expectStatus(() =>
      custom.replaceNamespacedCustomObject({
        group,
        version,
        namespace: 'default',
        plural: 'imagepulljobs',
        name: 'ok',
        body: { ...current, metadata },
      }),
    );
    expect(noRV.message).toContain(
      'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it('prints the CRD columns in Table output', async () => {
    const { body: res } = await rawRequest(
      cp,
      'GET',
      `/apis/${group}/${version}/namespaces/default/imagepulljobs`,
      {
        headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
      },
    );
    expect(res.kind).toBe('Table');
    expect(res.columnDefinitions.map((c: any) => c.name)).toEqual([
      'Name',
      'TOTAL',
      'ACTIVE',
      'SUCCEED',
      'FAILED',
      'AGE',
      'MESSAGE',
    ]);
    const ok = res.rows.find((r: any) => r.cells[0] === 'ok');
    expect(ok.cells.slice(1, 3)).toEqual([2, 2]);
    expect(ok.cells[5]).toMatch(/^\d+s$/);
  });
});
