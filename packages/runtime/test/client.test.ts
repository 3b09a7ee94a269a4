import type { ControlPlane } from '@kruise/control-plane';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConflictError,
  InvalidError,
  type KubeClient,
  NotFoundError,
  Resources,
  retryOnConflict,
} from '../src/index.ts';
import { startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
beforeAll(async () => ({ cp, client } = await startEnv()));
afterAll(() => cp.stop());

describe('KubeClient', () => {
  it('creates, reads, lists, patches and deletes, keeping timestamps as strings', async () => {
    const created = await client.create(Resources.ConfigMap, {
      metadata: { name: 'c1', namespace: 'default', labels: { a: 'b' } },
      data: { k: 'v' },
    });
    expect(typeof created.metadata?.creationTimestamp).toBe('string');
    const got = await client.get(Resources.ConfigMap, 'default', 'c1');
    expect(got.data).toEqual({ k: 'v' });
    const list = await client.list(Resources.ConfigMap, { namespace: 'default', labelSelector: 'a=b' });
    expect(list.items.map((c) => c.metadata?.name)).toEqual(['c1']);
    const patched = await client.mergePatch(Resources.ConfigMap, 'default', 'c1', { data: { k: 'w' } });
    expect(patched.data).toEqual({ k: 'w' });
    await client.delete(Resources.ConfigMap, 'default', 'c1');
    await expect(client.get(Resources.ConfigMap, 'default', 'c1')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('maps failures to typed errors that carry the server message', async () => {
    await client.create(Resources.Secret, { metadata: { name: 's', namespace: 'default' } });
    const dup = await client
      .create(Resources.Secret, { metadata: { name: 's', namespace: 'default' } })
      .catch((e) => e);
    expect(dup).toBeInstanceOf(AlreadyExistsError);
    expect(dup.message).toBe('secrets "s" already exists');
    const bad = await client
      .create(Resources.Secret, { metadata: { name: 'Bad', namespace: 'default' } })
      .catch((e) => e);
    expect(bad).toBeInstanceOf(InvalidError);
    const s = await client.get(Resources.Secret, 'default', 's');
    await client.update(Resources.Secret, { ...s, data: { a: 'YQ==' } });
    const stale = await client.update(Resources.Secret, { ...s, data: { a: 'Yg==' } }).catch((e) => e);
    expect(stale).toBeInstanceOf(ConflictError);
  });

  it('patches status through the status subresource only', async () => {
    await client.create(Resources.Pod, {
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    const pod = await client.mergePatchStatus(Resources.Pod, 'default', 'p', {
      status: { phase: 'Running' },
      spec: { nodeName: 'ignored' },
    });
    expect(pod.status.phase).toBe('Running');
    expect(pod.spec.nodeName).toBeUndefined();
  });

  it('retries read-modify-write loops on conflict until every increment lands', async () => {
    await client.create(Resources.ConfigMap, {
      metadata: { name: 'counter', namespace: 'default' },
      data: { n: '0' },
    });
    const increment = () =>
      retryOnConflict(
        async () => {
          const cm = await client.get(Resources.ConfigMap, 'default', 'counter');
          await client.update(Resources.ConfigMap, { ...cm, data: { n: String(Number(cm.data.n) + 1) } });
        },
        { steps: 50, delayMs: 1, jitter: 1 },
      );
    await Promise.all(Array.from({ length: 10 }, increment));
    expect((await client.get(Resources.ConfigMap, 'default', 'counter')).data.n).toBe('10');
  });

  it('pages through long lists', async () => {
    for (let i = 0; i < 12; i++)
      await client.create(Resources.ConfigMap, { metadata: { name: `page-${i}`, namespace: 'kube-public' } });
    const all = await client.listAll(Resources.ConfigMap, { namespace: 'kube-public', limit: 5 });
    // and the kube-root-ca.crt every namespace holds
    expect(all.items.map((c) => c.metadata?.name).filter((n) => n?.startsWith('page-'))).toHaveLength(12);
    expect(all.items).toHaveLength(13);
  });
});
