import type { SidecarSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  hotUpgradeContainers,
  isInjectedWith,
  isPodSidecarUpdated,
  patchPodMetadata,
  podSidecarSetHash,
  podSidecarSetHashWithoutImage,
  podSidecarSetRevision,
  sidecarNames,
  sidecarSetMatchesPod,
  writePodSidecarSetHash,
} from '../../src/workload/sidecarset/index.ts';

const sidecarSet: SidecarSet = {
  metadata: {
    name: 'mesh',
    annotations: { 'kruise.io/sidecarset-hash': 'h1', 'kruise.io/sidecarset-hash-without-image': 'w1' },
  },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    containers: [{ name: 'proxy', image: 'envoy:1' }],
    initContainers: [
      { name: 'init', image: 'busybox' },
      { name: 'agent', image: 'agent:1', restartPolicy: 'Always' },
    ],
  },
  status: { matchedPods: 0, updatedPods: 0, readyPods: 0, latestRevision: 'mesh-abc' },
};

describe('SidecarSet pod annotations', () => {
  it('write the upgrade spec as upstream marshals it, keeping other SidecarSets', () => {
    const annotations: Record<string, string> = {
      'kruise.io/sidecarset-hash': '{"other":"legacy-hash"}',
    };
    writePodSidecarSetHash(annotations, sidecarSet, {
      withoutImage: true,
      now: new Date('2026-11-26T10:00:00.123Z'),
    });
    expect(annotations['kruise.io/sidecarset-hash']).toBe(
      '{"mesh":{"updateTimestamp":"2026-11-26T10:00:00Z","hash":"h1","sidecarSetName":"mesh","sidecarList":["agent","proxy"],"controllerRevision":"mesh-abc"},' +
        '"other":{"updateTimestamp":null,"hash":"legacy-hash","sidecarSetName":"","sidecarList":null}}',
    );
    expect(JSON.parse(annotations['kruise.io/sidecarset-hash-without-image']!)).toEqual({
      mesh: {
        updateTimestamp: '2026-11-26T10:00:00Z',
        hash: 'w1',
        sidecarSetName: 'mesh',
        sidecarList: ['agent', 'proxy'],
      },
    });
    const pod = { metadata: { annotations } };
    expect(podSidecarSetHash(pod, 'mesh')).toBe('h1');
    expect(podSidecarSetHash(pod, 'other')).toBe('legacy-hash');
    expect(podSidecarSetHashWithoutImage(pod, 'mesh')).toBe('w1');
    expect(podSidecarSetRevision(pod, 'mesh')).toBe('mesh-abc');
    expect(isPodSidecarUpdated(sidecarSet, pod)).toBe(true);
    expect(isPodSidecarUpdated({ ...sidecarSet, metadata: { name: 'mesh', annotations: {} } }, pod)).toBe(
      false,
    );
  });

  it('read unreadable annotations as absent', () => {
    const pod = { metadata: { annotations: { 'kruise.io/sidecarset-hash': 'not json' } } };
    expect(podSidecarSetHash(pod, 'mesh')).toBe('');
  });

  it('list the injected SidecarSets', () => {
    const pod = { metadata: { annotations: { 'kruise.io/sidecarset-injected-list': 'a,mesh' } } };
    expect(isInjectedWith(pod, 'mesh')).toBe(true);
    expect(isInjectedWith(pod, 'mes')).toBe(false);
    expect(isInjectedWith({}, 'mesh')).toBe(false);
  });

  it('name native sidecars and containers, not plain init containers', () => {
    expect(sidecarNames(sidecarSet)).toEqual(['agent', 'proxy']);
  });
});

describe('SidecarSet selection', () => {
  const pod = (ns: string, labels: Record<string, string>): Pod => ({ metadata: { namespace: ns, labels } });
  const namespaces: Record<string, Record<string, string>> = { prod: { env: 'prod' }, dev: { env: 'dev' } };
  it('needs the selector and, when set, the namespaceSelector to match', () => {
    const withNs: SidecarSet = {
      ...sidecarSet,
      spec: { ...sidecarSet.spec, namespaceSelector: { matchLabels: { env: 'prod' } } },
    };
    const lookup = (n: string) => namespaces[n];
    expect(sidecarSetMatchesPod(sidecarSet, pod('dev', { app: 'web' }), lookup)).toBe(true);
    expect(sidecarSetMatchesPod(sidecarSet, pod('dev', { app: 'db' }), lookup)).toBe(false);
    expect(sidecarSetMatchesPod(withNs, pod('prod', { app: 'web' }), lookup)).toBe(true);
    expect(sidecarSetMatchesPod(withNs, pod('dev', { app: 'web' }), lookup)).toBe(false);
    expect(sidecarSetMatchesPod(withNs, pod('gone', { app: 'web' }), lookup)).toBe(false);
    // An empty selector selects nothing.
    expect(sidecarSetMatchesPod({ spec: { selector: {} } }, pod('dev', { app: 'web' }), lookup)).toBe(false);
  });
});

describe('hot-upgrade copies', () => {
  it('work from the annotation, name-2 by default', () => {
    expect(hotUpgradeContainers('envoy', {})).toEqual({ working: 'envoy-2', other: 'envoy-1' });
    const pod = {
      metadata: {
        annotations: { 'kruise.io/sidecarset-working-hotupgrade-container': '{"envoy":"envoy-1"}' },
      },
    };
    expect(hotUpgradeContainers('envoy', pod)).toEqual({ working: 'envoy-1', other: 'envoy-2' });
  });
});

describe('patchPodMetadata', () => {
  it('retains, overwrites and merges JSON as upstream', () => {
    const a: Record<string, string> = { keep: 'mine', over: 'old', json: '{"a":1,"b":{"c":2}}' };
    const changed = patchPodMetadata(a, [
      { annotations: { keep: 'theirs', added: 'x' } },
      { patchPolicy: 'Overwrite', annotations: { over: 'new' } },
      { patchPolicy: 'MergePatchJson', annotations: { json: '{"b":{"d":3},"a":null}', fresh: '{"z":1}' } },
    ]);
    expect(changed).toBe(true);
    expect(a).toEqual({
      keep: 'mine',
      added: 'x',
      over: 'new',
      json: '{"b":{"c":2,"d":3}}',
      fresh: '{"z":1}',
    });
    expect(patchPodMetadata(a, [{ annotations: { keep: 'theirs' } }])).toBe(false);
  });

  it('writes a merged document with sorted keys, as Go does', () => {
    const a: Record<string, string> = { j: '{"b":1}' };
    patchPodMetadata(a, [{ patchPolicy: 'MergePatchJson', annotations: { j: '{"a":2}' } }]);
    expect(a.j).toBe('{"a":2,"b":1}');
  });

  it('throws on a MergePatchJson value that is not JSON', () => {
    expect(() =>
      patchPodMetadata({ j: '{}' }, [{ patchPolicy: 'MergePatchJson', annotations: { j: '{' } }]),
    ).toThrow();
  });
});
