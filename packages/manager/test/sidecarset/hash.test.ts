import type { SidecarSet } from '@kruise/api';
import { describe, expect, it } from 'vitest';
import { sidecarSetHash, sidecarSetHashWithoutImage } from '../../src/workload/sidecarset/hash.ts';

/** Upstream's own test vectors (pkg/control/sidecarcontrol/hash_test.go at v1.9.0). */
const set = (initRestart?: 'Always', image = 'test-image'): SidecarSet => ({
  metadata: { name: 'test-sidecar-set' },
  spec: {
    containers: [{ name: 'container1', image }],
    initContainers: [
      { name: 'container1', image: 'test-image', ...(initRestart ? { restartPolicy: initRestart } : {}) },
    ],
  },
});

describe('SidecarSet hashes', () => {
  it('are upstream’s, byte for byte', () => {
    expect(sidecarSetHash({ spec: { containers: [{ name: 'container1', image: 'test-image' }] } })).toBe(
      'w26c4x8fz245642fdv499b464248f974xddx4x55z5dw55bc6x66464fxz77dc78',
    );
    // Plain init containers are not hashed; a native sidecar brings every init container in.
    expect(sidecarSetHash(set())).toBe('w26c4x8fz245642fdv499b464248f974xddx4x55z5dw55bc6x66464fxz77dc78');
    expect(sidecarSetHash(set('Always'))).toBe(
      '4xwx4d4844vd4v9x79wb4xbxf4xb29475cc4446v8cz2c2f2f5c5bw448vd42z8w',
    );
    expect(sidecarSetHashWithoutImage(set())).toBe(
      '8wzddb4dvv9c6x8zdc77z4z75987424f457dfv6724ddw6zbdx467wz5x24fc759',
    );
    expect(sidecarSetHashWithoutImage(set('Always'))).toBe(
      '5725fw8bwbx249bw57v5892c847dzf48bww9zb7c86xb95264fdz26654847b2c8',
    );
  });

  it('change with an image, and without-image hashes do not', () => {
    expect(sidecarSetHash(set(undefined, 'new-image'))).not.toBe(sidecarSetHash(set()));
    expect(sidecarSetHashWithoutImage(set(undefined, 'new-image'))).toBe(sidecarSetHashWithoutImage(set()));
  });
});
