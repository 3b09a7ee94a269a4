import { type ControlPlane, ControlPlane as CP } from '@kruise/control-plane';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withConnectionReuse } from '../src/index.ts';

let cp: ControlPlane;
beforeAll(async () => {
  cp = await CP.start();
});
afterAll(() => cp.stop());

const client = (reuse: boolean) => {
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig());
  return (reuse ? withConnectionReuse(kc) : kc).makeApiClient(CoreV1Api);
};

describe('withConnectionReuse', () => {
  it('keeps one connection for sequential requests where plain client-node opens one per request', async () => {
    const before = cp.connectionCount;
    const plain = client(false);
    for (let i = 0; i < 10; i++) await plain.listNamespace();
    const plainConnections = cp.connectionCount - before;
    const reused = client(true);
    const mid = cp.connectionCount;
    for (let i = 0; i < 10; i++) await reused.listNamespace();
    expect(plainConnections).toBe(10);
    expect(cp.connectionCount - mid).toBeLessThanOrEqual(2);
  });
});
