import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { readWatchFrames, type WatchEventJson } from '../src/protobuf/watch-event.ts';
import { eventually, rawRequest, startControlPlane } from './helpers.ts';

const PROTOBUF_WATCH = 'application/vnd.kubernetes.protobuf;stream=watch';

let cp: ControlPlane;

beforeAll(async () => {
  // The watch streams exactly the test's own writes: no Deployment controller writes besides.
  cp = await startControlPlane({ bookmarkIntervalMs: 200, replicaSets: false });
});
afterAll(() => cp?.stop());

/** A raw HTTPS watch that keeps every byte it receives; events are decoded by the caller's format. */
function openWatch(path: string, accept: string) {
  const url = new URL(cp.url + path);
  const chunks: Buffer[] = [];
  let headers: IncomingHttpHeaders | undefined;
  const req = request(
    {
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      ca: cp.caCert,
      headers: { authorization: `Bearer ${cp.adminToken}`, accept },
    },
    (res) => {
      headers = res.headers;
      res.on('data', (c: Buffer) => chunks.push(c));
    },
  );
  req.on('error', () => {});
  req.end();
  const bytes = () => Buffer.concat(chunks);
  return {
    bytes,
    headers: () => headers,
    /** Events of a protobuf stream (whole frames only, so a partial one is never misread). */
    frames: (): WatchEventJson[] => readWatchFrames(bytes()).events,
    /** Events of a JSON stream. */
    lines: (): WatchEventJson[] =>
      bytes()
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l)),
    close: () => req.destroy(),
  };
}

async function post(path: string, body: object): Promise<any> {
  const res = await rawRequest(cp, 'POST', path, { body: JSON.stringify(body) });
  expect(res.code).toBe(201);
  return res.body;
}

const withoutBookmarks = (events: WatchEventJson[]) => events.filter((e) => e.type !== 'BOOKMARK');

describe('protobuf watch streams', () => {
  it.each([
    {
      kind: 'Pod',
      collection: '/api/v1/namespaces/default/pods',
      apiVersion: 'v1',
      body: {
        metadata: { name: 'pb-watch', labels: { app: 'pb' } },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
      },
    },
    {
      kind: 'Deployment',
      collection: '/apis/apps/v1/namespaces/default/deployments',
      apiVersion: 'apps/v1',
      body: {
        metadata: { name: 'pb-watch', labels: { app: 'pb' } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'pb' } },
          template: {
            metadata: { labels: { app: 'pb' } },
            spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
          },
        },
      },
    },
  ])('streams $kind ADDED, MODIFIED, DELETED and bookmarks that decode to the JSON watch', async (c) => {
    const list = await rawRequest(cp, 'GET', c.collection);
    const query = `?watch=true&allowWatchBookmarks=true&resourceVersion=${list.body.metadata.resourceVersion}`;
    const pb = openWatch(c.collection + query, PROTOBUF_WATCH);
    const json = openWatch(c.collection + query, 'application/json');
    await eventually(() => pb.headers() !== undefined && json.headers() !== undefined);
    expect(pb.headers()!['content-type']).toBe(PROTOBUF_WATCH);
    expect(json.headers()!['content-type']).toBe('application/json');

    await post(c.collection, { apiVersion: c.apiVersion, kind: c.kind, ...c.body });
    const patched = await rawRequest(cp, 'PATCH', `${c.collection}/pb-watch`, {
      body: JSON.stringify({ metadata: { labels: { step: 'two' } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.code).toBe(200);
    const deleted = await rawRequest(cp, 'DELETE', `${c.collection}/pb-watch?gracePeriodSeconds=0`);
    expect(deleted.code).toBe(200);

    const done = (events: WatchEventJson[]) =>
      events.some((e) => e.type === 'DELETED') && events.some((e) => e.type === 'BOOKMARK');
    await eventually(() => done(pb.frames()) && done(json.lines()), 10_000);
    const fromProtobuf = withoutBookmarks(pb.frames());
    const fromJson = withoutBookmarks(json.lines());
    pb.close();
    json.close();

    expect(fromProtobuf.map((e) => e.type)).toEqual(fromJson.map((e) => e.type));
    expect(fromProtobuf.map((e) => e.type).slice(0, 2)).toEqual(['ADDED', 'MODIFIED']);
    expect(fromProtobuf.at(-1)!.type).toBe('DELETED');
    // Pods see other changes too (their scheduling condition); one MODIFIED carries the patch.
    expect(
      fromProtobuf.filter((e) => e.type === 'MODIFIED').map((e) => e.object.metadata.labels),
    ).toContainEqual({ app: 'pb', step: 'two' });
    expect(fromProtobuf).toEqual(fromJson);

    const bookmark = pb.frames().find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object).toEqual({
      apiVersion: c.apiVersion,
      kind: c.kind,
      metadata: { resourceVersion: expect.stringMatching(/^\d+$/) },
    });
  });

  it('lays out a frame as apimachinery does: length, WatchEvent, RawExtension, k8s envelope', async () => {
    await post('/api/v1/namespaces', { metadata: { name: 'pb-bytes' } });
    const w = openWatch(
      // secrets: a namespace's config maps start with kube-root-ca.crt, its secrets with nothing
      '/api/v1/namespaces/pb-bytes/secrets?watch=1&allowWatchBookmarks=1',
      PROTOBUF_WATCH,
    );
    await eventually(() => w.frames().length > 0, 10_000);
    const rv = w.frames()[0]!.object.metadata.resourceVersion as string;
    w.close();

    // Written by hand from the field numbers of apimachinery's generated.proto files:
    // WatchEvent{1 type, 2 object: RawExtension{1 raw}}, raw = "k8s\0" + runtime.Unknown{1 typeMeta:
    // TypeMeta{1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}, and the
    // Secret {1 metadata: ObjectMeta{6 resourceVersion}}. Every length here is below 128: one varint byte.
    const str = (s: string) => [s.length, ...Buffer.from(s)];
    const len = (bytes: number[]) => [bytes.length, ...bytes];
    const objectMeta = [0x32, ...str(rv)];
    const secret = [0x0a, ...len(objectMeta)];
    const typeMeta = [0x0a, ...str('v1'), 0x12, ...str('Secret')];
    const unknown = [0x0a, ...len(typeMeta), 0x12, ...len(secret), 0x1a, 0x00, 0x22, 0x00];
    const enveloped = [0x6b, 0x38, 0x73, 0x00, ...unknown];
    const rawExtension = [0x0a, ...len(enveloped)];
    const watchEvent = [0x0a, ...str('BOOKMARK'), 0x12, ...len(rawExtension)];
    const frame = Buffer.from([0, 0, 0, watchEvent.length, ...watchEvent]);
    expect(w.bytes().subarray(0, frame.length).toString('hex')).toBe(frame.toString('hex'));
  });

  it('ends a too-old protobuf watch with an ERROR frame carrying a 410 Status', async () => {
    const list = await rawRequest(cp, 'GET', '/api/v1/namespaces/default/configmaps');
    await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'pb-old' } });
    cp.faults.compactHistory();
    const w = openWatch(
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
      PROTOBUF_WATCH,
    );
    await eventually(() => w.frames().length > 0);
    expect(w.headers()!['content-type']).toBe(PROTOBUF_WATCH);
    expect(w.frames()).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' }),
      },
    ]);
    w.close();
  });

  it('keeps custom resources JSON for a client that prefers protobuf', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.pb.example.com' },
      spec: {
        group: 'pb.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    const collection = '/apis/pb.example.com/v1/namespaces/default/widgets';
    await eventually(async () => (await rawRequest(cp, 'GET', collection)).code === 200, 10_000);
    const w = openWatch(`${collection}?watch=1`, 'application/vnd.kubernetes.protobuf, application/json');
    await eventually(() => w.headers() !== undefined);
    await post(collection, { apiVersion: 'pb.example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    await eventually(() => w.lines().length > 0);
    expect(w.headers()!['content-type']).toBe('application/json');
    expect(w.lines()[0]).toMatchObject({
      type: 'ADDED',
      object: { kind: 'Widget', metadata: { name: 'w' } },
    });
    w.close();
  });
});
