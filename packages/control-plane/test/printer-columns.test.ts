import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, rawRequest, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';

const crds = join(dirname(fileURLToPath(import.meta.url)), '../../../deploy/crds');

/** A CRD whose printer columns use client-go JSONPath beyond plain fields. */
const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        additionalPrinterColumns: [
          { name: 'Second', type: 'string', jsonPath: '.spec.parts[1].name' },
          { name: 'Last', type: 'string', jsonPath: '.spec.parts[-1].name' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Zone', type: 'string', jsonPath: '.metadata.labels.example\\.com/zone' },
          { name: 'Sizes', type: 'integer', jsonPath: '.spec.parts[*].size' },
          { name: 'Limits', type: 'string', jsonPath: '.spec.limits' },
          { name: 'Beyond', type: 'string', jsonPath: '.spec.parts[7].name' },
        ],
      },
    ],
  },
};

let cp: ControlPlane;
let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
let dispose: () => void;

beforeAll(async () => {
  cp = await startControlPlane();
  ({ kubectl, dispose } = kubectlFor(cp));
});
afterAll(async () => {
  dispose?.();
  await cp?.stop();
});

describe("a CRD's additionalPrinterColumns", () => {
  it('shows the CloneSet wide columns with [*] paths: the first container, as kube-apiserver prints it', async () => {
    expect((await kubectl(['apply', '-f', crds])).code).toBe(0);
    const clone =
      'apiVersion: apps.kruise.io/v1alpha1\nkind: CloneSet\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: main, image: "nginx:1.27"}\n      - {name: sidecar, image: "busybox:1.36"}\n';
    await eventually(async () => (await kubectl(['apply', '-f', '-'], clone)).code === 0);
    const wide = await kubectl(['get', 'clone', 'web', '-o', 'wide']);
    expect(wide.code).toBe(0);
    const [header, row] = wide.out.split('\n');
    expect(header).toMatch(
      /^NAME\s+DESIRED\s+UPDATED\s+UPDATED_READY\s+UPDATED_AVAILABLE\s+READY\s+TOTAL\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/,
    );
    expect(row).toMatch(/^web\s+2\s+.*\s+\d+s\s+main\s+nginx:1\.27\s+/);
  });

  it('evaluates indexes, filters, escaped keys and wildcards in the Table cells', async () => {
    const created = await rawRequest(cp, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: JSON.stringify(gadgetCrd),
    });
    expect(created.code).toBe(201);
    const gadget = {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g1', labels: { 'example.com/zone': 'east' } },
      spec: {
        parts: [
          { name: 'axle', size: 3 },
          { name: 'wheel', size: 5 },
          { name: 'bolt', size: 1 },
        ],
        limits: { memory: '1Gi', cpu: 2 },
      },
      status: {
        conditions: [
          { type: 'Synced', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
      },
    };
    await eventually(
      async () =>
        (
          await rawRequest(cp, 'POST', '/apis/example.com/v1/namespaces/default/gadgets', {
            body: JSON.stringify(gadget),
          })
        ).code === 201,
    );
    const { body: table } = await rawRequest(
      cp,
      'GET',
      '/apis/example.com/v1/namespaces/default/gadgets/g1',
      {
        headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
      },
    );
    expect(table.rows[0].cells).toEqual([
      'g1',
      'wheel',
      'bolt',
      'True',
      'east',
      3,
      '{"cpu":2,"memory":"1Gi"}',
      null,
    ]);
    expect(table.columnDefinitions[1].description).toBe(
      'Custom resource definition column (in JSONPath format): .spec.parts[1].name',
    );
  });
});
