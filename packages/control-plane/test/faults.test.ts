import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { expectStatus, kubeConfigFor, startControlPlane } from './helpers.ts';

let cp: ControlPlane;
let core: CoreV1Api;
beforeAll(async () => {
  cp = await startControlPlane();
  core = kubeConfigFor(cp).makeApiClient(CoreV1Api);
});
afterAll(() => cp.stop());

describe('injected faults', () => {
  it('fails the next N writes of a resource with the given status, then recovers', async () => {
    cp.faults.failWrites('/configmaps', 2, 500);
    const first = await expectStatus(() =>
      core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'f1' } } }),
    );
    expect(first).toMatchObject({ code: 500, reason: 'InternalError' });
    cp.faults.failWrites('/configmaps', 1, 429);
    expect(
      (
        await expectStatus(() =>
          core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'f1' } } }),
        )
      ).code,
    ).toBe(500);
    expect(
      (
        await expectStatus(() =>
          core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'f1' } } }),
        )
      ).code,
    ).toBe(429);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'f1' } } });
    expect(cp.faults.injectedCount()).toBe(3);
  });

  it('leaves reads and other resources alone', async () => {
    cp.faults.failWrites('/secrets', 5, 503);
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'f2' } } });
    await core.listNamespacedSecret({ namespace: 'default' });
    expect(
      (
        await expectStatus(() =>
          core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 's' } } }),
        )
      ).code,
    ).toBe(503);
    cp.faults.clear();
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 's' } } });
  });
});
