import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/errors.ts';
import { decodeObject, encodeObject } from '../src/protobuf/codec.ts';
import { formatDuration, parseDuration } from '../src/protobuf/well-known.ts';

// kubectl's decoder checks what it reads (protobuf.test.ts); these check that every shape the
// generated schema describes survives our own encode → decode unchanged.
describe('protobuf codec', () => {
  it('round-trips a pod with inline volume sources, quantities, int-or-string, times and bytes', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'default',
        labels: { app: 'web' },
        creationTimestamp: '2026-11-24T12:00:00Z',
        deletionGracePeriodSeconds: 0,
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true },
        ],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'v1',
            time: '2026-11-24T12:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {} } } } },
          },
        ],
      },
      spec: {
        automountServiceAccountToken: false,
        volumes: [
          { name: 'cfg', configMap: { name: 'c', defaultMode: 420, items: [{ key: 'a', path: 'a' }] } },
          { name: 'tmp', emptyDir: { sizeLimit: '1Gi' } },
        ],
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            resources: { limits: { cpu: '500m', memory: '128Mi' } },
            readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
            livenessProbe: { tcpSocket: { port: 8080 } },
          },
        ],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: -1 }],
      },
      status: { phase: 'Running', startTime: '2026-11-24T12:00:01Z' },
    };
    expect(decodeObject(encodeObject(pod)!)).toEqual(pod);
  });

  it('round-trips secrets (bytes) and a CRD schema with its JSON unions', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      type: 'Opaque',
      data: { pw: 'aHVudGVyMg==' },
    };
    expect(decodeObject(encodeObject(secret)!)).toEqual(secret);
    const schema = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        spec: {
          type: 'object',
          required: ['image'],
          properties: {
            image: { type: 'string', default: 'nginx' },
            size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            open: { type: 'object', additionalProperties: true },
          },
        },
      },
    };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      },
      status: {},
    };
    expect(decodeObject(encodeObject(crd)!)).toEqual(crd);
  });

  it('answers malformed bytes with a 400, never a crash', () => {
    const good = encodeObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'b' },
    })!;
    for (const bad of [
      good.subarray(0, good.length - 3),
      Buffer.from('k8s\0\x0a\xff\xff'),
      Buffer.from('{"a":1}'),
    ]) {
      try {
        decodeObject(bad);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).code).toBe(400);
      }
    }
  });

  it('writes durations as Go does', () => {
    expect(['0s', '1.5s', '300ms', '1h0m0s', '2m30s'].map((d) => formatDuration(parseDuration(d)!))).toEqual([
      '0s',
      '1.5s',
      '300ms',
      '1h0m0s',
      '2m30s',
    ]);
  });
});
