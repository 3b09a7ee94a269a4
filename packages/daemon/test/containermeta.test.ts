import { expectedEnvFromMetadataHash } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  dumpMetaSet,
  needsSync,
  parseEnvOutput,
  readMetaSet,
  syncMetaSet,
} from '../src/containermeta/meta.ts';

const env = [{ name: 'VERSION', valueFrom: { fieldRef: { fieldPath: "metadata.labels['version']" } } }];
const pod = (
  labels: Record<string, string>,
  extra: { meta?: object; unready?: boolean; owner?: boolean } = {},
): Pod =>
  ({
    metadata: {
      name: 'web-abcde',
      namespace: 'ns',
      labels,
      annotations: extra.meta ? { 'apps.kruise.io/runtime-containers-meta': JSON.stringify(extra.meta) } : {},
      ownerReferences:
        extra.owner === false
          ? []
          : [
              {
                apiVersion: 'apps.kruise.io/v1alpha1',
                kind: 'CloneSet',
                name: 'web',
                uid: 'u',
                controller: true,
              },
            ],
    },
    spec: { containers: [{ name: 'main', image: 'busybox:v1', env }] },
    status: {
      conditions: extra.unready ? [{ type: 'InPlaceUpdateReady', status: 'False' }] : [],
      containerStatuses: [
        {
          name: 'main',
          containerID: 'containerd://c1',
          ready: true,
          restartCount: 0,
          image: 'busybox:v1',
          imageID: 'x',
        },
      ],
    },
  }) as Pod;
const runtime = [{ name: 'main', id: 'containerd://c1', restartCount: 0, hash: 1234, running: true }];

describe('containermeta', () => {
  it('reports kubelet’s hash and the env hash read from the running container', async () => {
    const p = pod({ version: '1' });
    const reads: string[] = [];
    const res = await syncMetaSet(p, runtime, true, async (c, id) => {
      reads.push(id);
      return expectedEnvFromMetadataHash(c, { labels: { version: '1' } });
    });
    expect(reads).toEqual(['containerd://c1']);
    expect(res.restart).toEqual([]);
    const hash = expectedEnvFromMetadataHash(p.spec!.containers[0]!, p.metadata!);
    expect(dumpMetaSet(res.set)).toBe(
      `{"containers":[{"name":"main","containerID":"containerd://c1","restartCount":0,"hashes":{"plainHash":1234,"extractedEnvFromMetadataHash":${hash}}}]}`,
    );
  });

  it('restarts a container whose env no longer matches the labels only while InPlaceUpdateReady is False', async () => {
    const oldHash = expectedEnvFromMetadataHash({ env }, { labels: { version: '1' } });
    const meta = {
      containers: [
        {
          name: 'main',
          containerID: 'containerd://c1',
          restartCount: 0,
          hashes: { plainHash: 1234, extractedEnvFromMetadataHash: oldHash },
        },
      ],
    };
    const never = async () => {
      throw new Error('no exec expected: the hash is known for this container ID');
    };
    const updating = await syncMetaSet(pod({ version: '2' }, { meta, unready: true }), runtime, true, never);
    expect(updating.restart).toEqual(['containerd://c1']);
    // A label changed outside an in-place update restarts nothing.
    const annotationOnly = await syncMetaSet(pod({ version: '2' }, { meta }), runtime, true, never);
    expect(annotationOnly.restart).toEqual([]);
    const gateOff = await syncMetaSet(pod({ version: '2' }, { meta, unready: true }), runtime, false, never);
    expect(gateOff.restart).toEqual([]);
  });

  it('reports the env hash of a created container only when it has no env from metadata (no exec needed)', async () => {
    const created = [{ ...runtime[0]!, running: false }];
    const never = async () => {
      throw new Error('no exec expected: the container does not run');
    };
    const plain = pod({ version: '1' });
    plain.spec!.containers[0]!.env = [];
    const res = await syncMetaSet(plain, created, true, async (c) => expectedEnvFromMetadataHash(c, {}));
    expect(res.set.containers[0]!.hashes.extractedEnvFromMetadataHash).toBe(
      expectedEnvFromMetadataHash({}, {}),
    );
    const fromLabels = await syncMetaSet(pod({ version: '1' }), created, true, never);
    expect(fromLabels.set.containers[0]!.hashes.extractedEnvFromMetadataHash).toBeUndefined();
    expect(fromLabels.retry).toBe(false);
  });

  it('asks to look again when the env cannot be read', async () => {
    const res = await syncMetaSet(pod({ version: '1' }), runtime, true, async () => {
      throw new Error('exec failed');
    });
    expect(res.retry).toBe(true);
    expect(res.set.containers[0]!.hashes.extractedEnvFromMetadataHash).toBeUndefined();
  });

  it('syncs only watched pods whose meta is missing, stale or whose expected env hash moved', () => {
    expect(needsSync(undefined, pod({ version: '1' }, { owner: false }), true)).toBe(false);
    expect(needsSync(undefined, pod({ version: '1' }), true)).toBe(true);
    const hash = expectedEnvFromMetadataHash({ env }, { labels: { version: '1' } });
    const meta = {
      containers: [
        {
          name: 'main',
          containerID: 'containerd://c1',
          restartCount: 0,
          hashes: { plainHash: 1, extractedEnvFromMetadataHash: hash },
        },
      ],
    };
    const current = pod({ version: '1' }, { meta });
    expect(needsSync(current, current, true)).toBe(false);
    expect(needsSync(current, pod({ version: '2' }, { meta }), true)).toBe(true);
    expect(readMetaSet(pod({}, { meta: { nope: 1 } }))).toBeUndefined();
  });

  it('parses env output', () => {
    expect(parseEnvOutput('PATH=/bin\nVERSION=a=b\n\nbroken\n')).toEqual({ PATH: '/bin', VERSION: 'a=b' });
  });
});
