import { deepHashJsonBytes } from '@kruise/kube-compat';
import { describe, expect, it } from 'vitest';
import {
  expectedEnvFromMetadataHash,
  isContainerReferenceToMeta,
  splitSubscriptedPath,
} from '../src/index.ts';

describe('env-from-metadata hash', () => {
  const container = {
    env: [
      { name: 'B', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['x/y']" } } },
      { name: 'A', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: 'PLAIN', value: 'p' },
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'SIDECARSET_VERSION', valueFrom: { fieldRef: { fieldPath: "metadata.labels['v']" } } },
    ],
  };

  it('hashes the name-sorted metadata-derived env vars with their current values', () => {
    const meta = { labels: { app: 'web', v: '1' }, annotations: { 'x/y': 'z' } };
    expect(expectedEnvFromMetadataHash(container, meta)).toBe(
      deepHashJsonBytes('[{"name":"A","value":"web"},{"name":"B","value":"z"}]'),
    );
    // A missing key gives an empty value, which Go leaves out.
    expect(expectedEnvFromMetadataHash(container, {})).toBe(deepHashJsonBytes('[{"name":"A"},{"name":"B"}]'));
    expect(expectedEnvFromMetadataHash({ env: [] }, meta)).toBe(86995377);
    // Excluded or non-subscripted vars do not count.
    expect(expectedEnvFromMetadataHash(container, { ...meta, labels: { app: 'web', v: '2' } })).toBe(
      expectedEnvFromMetadataHash(container, meta),
    );
  });

  it('tells which keys a container reads', () => {
    expect(isContainerReferenceToMeta(container, 'metadata.labels', 'app')).toBe(true);
    expect(isContainerReferenceToMeta(container, 'metadata.annotations', 'x/y')).toBe(true);
    expect(isContainerReferenceToMeta(container, 'metadata.labels', 'v')).toBe(false);
    expect(splitSubscriptedPath("metadata.labels['a']")).toEqual({ path: 'metadata.labels', subscript: 'a' });
    expect(splitSubscriptedPath("['a']")).toBeUndefined();
    expect(splitSubscriptedPath('metadata.name')).toBeUndefined();
  });
});
