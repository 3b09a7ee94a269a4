import { describe, expect, it } from 'vitest';
import { trimNamespace } from '../../src/informers.ts';
import { synced } from '../../src/workload/cache-sync.ts';

describe('the SidecarSet step’s caches', () => {
  it('wait for an informer’s first list, and refuse once it has not listed in time', async () => {
    let listed: () => void = () => undefined;
    let done = false;
    const informer = {
      hasSynced: () => done,
      waitForSync: () =>
        new Promise<void>((resolve) => {
          listed = resolve;
        }),
    };
    const waiting = synced(informer, 1000);
    done = true;
    listed();
    await expect(waiting).resolves.toBeUndefined();
    await expect(
      synced({ hasSynced: () => false, waitForSync: () => new Promise(() => undefined) }, 20),
    ).rejects.toThrow('caches not synced');
  });

  it('keep only the name and labels of a Namespace', () => {
    expect(
      trimNamespace({
        metadata: {
          name: 'a',
          resourceVersion: '7',
          labels: { env: 'prod' },
          annotations: { big: 'x' },
          uid: 'u',
        },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      }),
    ).toEqual({ metadata: { name: 'a', resourceVersion: '7', labels: { env: 'prod' } } });
  });
});
