import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';

describe('core/v1 ReplicationController', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;

  beforeAll(async () => {
    cp = await startControlPlane();
    core = kubeConfigFor(cp).makeApiClient(CoreV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
  });
  afterAll(async () => {
    dispose?.();
    await cp?.stop();
  });

  it('is served in discovery with its short name', async () => {
    const res = await kubectl(['api-resources', '--api-group=']);
    expect(res.out).toMatch(/replicationcontrollers\s+rc\s+v1\s+true\s+ReplicationController/);
  });

  it('takes its selector, labels and replicas from kube-apiserver’s defaults', async () => {
    await core.createNamespacedReplicationController({
      namespace: 'default',
      body: {
        metadata: { name: 'old' },
        spec: {
          template: {
            metadata: { labels: { app: 'old' } },
            spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
          },
        },
      },
    });
    const rc = await core.readNamespacedReplicationController({ name: 'old', namespace: 'default' });
    expect(rc.spec?.selector).toEqual({ app: 'old' });
    expect(rc.metadata?.labels).toEqual({ app: 'old' });
    expect(rc.spec?.replicas).toBe(1);
    expect(rc.metadata?.generation).toBe(1);
    const get = await kubectl(['get', 'rc', 'old']);
    expect(get.out).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\nold\s+1\s+0\s+0\s+/);
  });

  it('refuses one without a selector or template labels', async () => {
    const res = await kubectl(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ReplicationController',
        metadata: { name: 'bare' },
        spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } } },
      }),
    );
    expect(res.code).not.toBe(0);
    expect(res.err).toContain('spec.selector: Required value');
  });
});
