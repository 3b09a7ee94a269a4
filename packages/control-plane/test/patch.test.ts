import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.ts';
import { applyJsonPatch } from '../src/patch/json-patch.ts';
import { applyMergePatch } from '../src/patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../src/patch/strategic-merge.ts';

const pod = {
  metadata: { name: 'p', labels: { a: '1', b: '2' }, finalizers: ['x'] },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'busybox:v1',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [{ containerPort: 80 }],
      },
      { name: 'sidecar', image: 'busybox:v1' },
    ],
    tolerations: [{ key: 'k1', operator: 'Exists' }],
  },
  status: {
    conditions: [
      { type: 'Ready', status: 'False' },
      { type: 'KruisePodReady', status: 'True' },
    ],
  },
};

describe('strategic merge patch', () => {
  it('merges lists by their merge keys and leaves other entries alone', () => {
    const out = applyStrategicMergePatch(pod, {
      spec: {
        containers: [
          {
            name: 'app',
            image: 'busybox:v2',
            env: [
              { name: 'B', value: '3' },
              { name: 'C', value: '4' },
            ],
          },
        ],
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(out.spec.containers).toHaveLength(2);
    expect(out.spec.containers[0].image).toBe('busybox:v2');
    expect(out.spec.containers[0].env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
      { name: 'C', value: '4' },
    ]);
    expect(out.spec.containers[0].ports).toEqual([{ containerPort: 80 }]);
    expect(out.status.conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'KruisePodReady', status: 'True' },
    ]);
    expect(pod.spec.containers[0]!.image).toBe('busybox:v1');
  });

  it('deletes with $patch: delete and null, replaces with $patch: replace, orders with $setElementOrder', () => {
    const out = applyStrategicMergePatch(pod, {
      metadata: { labels: { a: null } },
      spec: {
        containers: [{ name: 'sidecar', $patch: 'delete' }],
        tolerations: [{ $patch: 'replace' }, { key: 'k2', operator: 'Exists' }],
      },
      status: {
        conditions: [{ type: 'New', status: 'True' }],
        '$setElementOrder/conditions': [{ type: 'New' }, { type: 'Ready' }, { type: 'KruisePodReady' }],
      },
    });
    expect(out.metadata.labels).toEqual({ b: '2' });
    expect(out.spec.containers.map((c: any) => c.name)).toEqual(['app']);
    expect(out.spec.tolerations).toEqual([{ key: 'k2', operator: 'Exists' }]);
    expect(out.status.conditions.map((c: any) => c.type)).toEqual(['New', 'Ready', 'KruisePodReady']);
  });

  it('merges finalizers as a set and replaces lists without a merge key', () => {
    const out = applyStrategicMergePatch(
      { metadata: { finalizers: ['x'] }, spec: { args: ['a', 'b'] } },
      { metadata: { finalizers: ['y', 'x'] }, spec: { args: ['c'] } },
    );
    expect(out.metadata.finalizers).toEqual(['x', 'y']);
    expect(out.spec.args).toEqual(['c']);
    const removed = applyStrategicMergePatch(
      { metadata: { finalizers: ['x', 'y'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } },
    );
    expect(removed.metadata.finalizers).toEqual(['y']);
  });
});

describe('JSON patch', () => {
  it('applies add, remove, replace, move, copy and test in order', () => {
    const out = applyJsonPatch({ a: { b: [1, 2] }, c: 1 }, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'replace', path: '/c', value: 2 },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e' },
      { op: 'remove', path: '/a/b/0' },
      { op: 'test', path: '/e', value: 2 },
      { op: 'add', path: '/a/x~1y', value: true },
    ]);
    expect(out).toEqual({ a: { b: [2, 3], 'x/y': true }, c: 2, e: 2 });
  });

  it('fails a whole patch with 422 when an operation fails, leaving the input alone', () => {
    const doc = { a: 1 };
    expect(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/a', value: 2 },
        { op: 'test', path: '/a', value: 3 },
      ]),
    ).toThrow(ApiError);
    expect(() => applyJsonPatch(doc, [{ op: 'remove', path: '/missing' }])).toThrow(/missing/);
    expect(doc).toEqual({ a: 1 });
  });
});

describe('merge patch', () => {
  it('follows RFC 7386', () => {
    expect(applyMergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } })).toEqual({
      a: 'z',
      c: { d: 'e' },
    });
    expect(applyMergePatch({ a: [1, 2] }, { a: [3] })).toEqual({ a: [3] });
    expect(applyMergePatch({ a: 1 }, { b: { c: null } })).toEqual({ a: 1, b: {} });
  });
});
