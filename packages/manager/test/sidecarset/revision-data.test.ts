import type { SidecarSet } from '@kruise/api';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { describe, expect, it } from 'vitest';
import { sidecarSetHash } from '../../src/workload/sidecarset/hash.ts';
import {
  restoreSidecarSetRevision,
  sidecarSetRevisionData,
} from '../../src/workload/sidecarset/revision-data.ts';

const set: SidecarSet = {
  metadata: { name: 'log', annotations: { 'kruise.io/sidecarset-hash': 'now' } },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    containers: [{ name: 'sidecar', image: 'busybox:1.36', shareVolumePolicy: { type: 'enabled' } }],
    imagePullSecrets: [{ name: 'reg' }],
    patchPodMetadata: [{ annotations: { b: '2', a: '1' } }],
  },
};

describe('SidecarSet revision data', () => {
  it('is upstream’s stored patch: the five recorded fields, keys sorted, Go zero values, null when absent', () => {
    expect(sidecarSetRevisionData(set)).toBe(
      '{"spec":{"$patch":"replace","containers":[{"image":"busybox:1.36","name":"sidecar","resources":{},' +
        '"shareVolumePolicy":{"type":"enabled"},"upgradeStrategy":{}}],"imagePullSecrets":[{"name":"reg"}],' +
        '"initContainers":null,"patchPodMetadata":[{"annotations":{"a":"1","b":"2"}}],"volumes":null}}',
    );
  });

  it('restores the SidecarSet at the revision: its spec only, its hashes, latestRevision naming it', () => {
    const revision: ControllerRevision = {
      metadata: { name: 'log-abc', annotations: { 'kruise.io/sidecarset-hash': 'old' } },
      data: JSON.parse(sidecarSetRevisionData(set)),
      revision: 1,
    };
    const current: SidecarSet = {
      ...set,
      spec: { ...set.spec, containers: [{ name: 'sidecar', image: 'busybox:1.37' }] },
    };
    const restored = restoreSidecarSetRevision(current, revision);
    expect(restored.spec?.containers?.[0]?.image).toBe('busybox:1.36');
    expect(restored.spec?.selector).toBeUndefined();
    expect(restored.spec?.initContainers).toBeUndefined();
    expect(restored.metadata?.annotations?.['kruise.io/sidecarset-hash']).toBe('old');
    // Without a stored hash-without-image it is computed from the restored spec.
    expect(restored.metadata?.annotations?.['kruise.io/sidecarset-hash-without-image']).toMatch(
      /^[bcdfghjklmnpqrstvwxz2456789]{64}$/,
    );
    expect(restored.status?.latestRevision).toBe('log-abc');
    expect(current.spec?.containers?.[0]?.image).toBe('busybox:1.37');
    const bare = restoreSidecarSetRevision(current, { ...revision, metadata: { name: 'log-abc' } });
    expect(bare.metadata?.annotations?.['kruise.io/sidecarset-hash']).toBe(sidecarSetHash(bare));
  });

  it('refuses a revision that holds no spec', () => {
    expect(() => restoreSidecarSetRevision(set, { metadata: { name: 'x' }, data: {}, revision: 1 })).toThrow(
      'controllerRevision x holds no SidecarSet spec',
    );
  });
});
