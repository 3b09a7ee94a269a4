import { describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../src/registry/registry.ts';
import type { KubeObject, ResourceType } from '../src/registry/types.ts';
import { managerOf, recordUpdate } from '../src/ssa/field-manager.ts';

const registry = new ResourceRegistry();
const builtin = (group: string, plural: string) => registry.byResource(group, plural)!;

/** A custom resource type with a structural schema (list-map with a defaulted key, a set, a map). */
const widgets: ResourceType = {
  ...builtin('', 'configmaps'),
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  statusSubresource: true,
  schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer' },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port', 'protocol'],
            items: {
              type: 'object',
              properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
            },
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
  },
};

const cases: [string, ResourceType, KubeObject][] = [
  [
    'a ConfigMap',
    builtin('', 'configmaps'),
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', labels: { a: 'b' }, uid: 'u', resourceVersion: '1' },
      data: { i: '1', j: '' },
    },
  ],
  [
    'a Pod (list-maps, nested structs, empty values, duplicate keys)',
    builtin('', 'pods'),
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'default',
        annotations: {},
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: '1', controller: true }],
        finalizers: ['a', 'b'],
      },
      spec: {
        nodeName: 'n',
        containers: [
          {
            name: 'app',
            image: 'busybox',
            command: ['sh', '-c'],
            ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
            env: [
              { name: 'A', value: '1' },
              { name: 'A', value: '2' },
            ],
            resources: {},
          },
        ],
        tolerations: [{ key: 'k', operator: 'Exists' }],
        securityContext: {},
      },
      status: { phase: 'Pending' },
    },
  ],
  [
    'a custom resource',
    widgets,
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: {
        size: 3,
        ports: [{ port: 80 }, { port: 80, protocol: 'UDP' }],
        tags: ['x', 'y'],
        labels: { a: 'b' },
        free: { deep: { er: [1, 2] }, n: null },
      },
      status: { ready: true },
    },
  ],
  ['an object with nothing but its name', builtin('', 'configmaps'), { metadata: { name: 'e' } }],
];

describe('managedFields of ordinary writes (create, update)', () => {
  it.each(cases)('create of %s: the one-walk entry equals the general comparison', (_, type, obj) => {
    for (const subresource of ['', 'status']) {
      const fast = structuredClone(obj);
      recordUpdate(type, undefined, fast, 'kubectl-create', subresource);
      // The general path: the same write compared field by field against an empty old object.
      const general = structuredClone(obj);
      recordUpdate(type, {}, general, 'kubectl-create', subresource);
      const withoutTime = (o: KubeObject) =>
        (o.metadata?.managedFields ?? []).map(({ time, ...e }: { time?: string }) => {
          expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
          return e;
        });
      expect(withoutTime(fast)).toEqual(withoutTime(general));
      expect(Object.keys(fast.metadata ?? {}).includes('managedFields')).toBe(
        Object.keys(general.metadata ?? {}).includes('managedFields'),
      );
    }
  });

  it('records the manager, Update, the apiVersion and the fields of a ConfigMap as kube-apiserver does', () => {
    const obj: KubeObject = { metadata: { name: 'c', labels: { a: 'b' } }, data: { k: 'v' } };
    recordUpdate(builtin('', 'configmaps'), undefined, obj, 'kubectl-create', '');
    expect(obj.metadata!.managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      },
    ]);
  });

  it('later updates take fields from their owner and keep the other entries as they were', () => {
    const type = builtin('', 'configmaps');
    const v1: KubeObject = { metadata: { name: 'c', labels: { a: '1' } }, data: { x: '1', y: '1' } };
    recordUpdate(type, undefined, v1, 'alice', '');
    // bob changes y and adds z: alice keeps x, a and loses y.
    const v2: KubeObject = structuredClone(v1);
    v2.data = { x: '1', y: '2', z: '1' };
    recordUpdate(type, v1, v2, 'bob', '');
    const byManager = (o: KubeObject) =>
      Object.fromEntries(o.metadata!.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    expect(byManager(v2)).toEqual({
      alice: { 'f:data': { '.': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      bob: { 'f:data': { 'f:y': {}, 'f:z': {} } },
    });
    // carol touches only a label: alice loses it, bob's entry is the same as before.
    const v3: KubeObject = structuredClone(v2);
    v3.metadata!.labels = { a: '2' };
    recordUpdate(type, v2, v3, 'carol', '');
    expect(byManager(v3)).toEqual({
      alice: { 'f:data': { '.': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': {} } },
      bob: byManager(v2).bob,
      carol: { 'f:metadata': { 'f:labels': { 'f:a': {} } } },
    });
    // bob writes the same values again: nothing moves, and his entry keeps its time.
    const v4: KubeObject = structuredClone(v3);
    recordUpdate(type, v3, v4, 'bob', '');
    expect(v4.metadata!.managedFields).toEqual(v3.metadata!.managedFields);
  });

  it('names the manager by fieldManager, else by the User-Agent up to its first slash, printable and at most 128 long', () => {
    expect(managerOf('helm', 'kubectl/v1.33.0 (linux/amd64)')).toBe('helm');
    expect(managerOf(null, 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerOf(null, 'my\u0001tool\u007f/1')).toBe('mytool');
    expect(managerOf(null, `${'a'.repeat(200)}/1`)).toBe('a'.repeat(128));
    expect(managerOf(null, 'outil-é/2')).toBe('outil-é');
    expect(managerOf(null, undefined)).toBe('');
  });
});
