import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlane, type ControlPlaneOptions } from '@kruise/control-plane';
import { CriClient } from '@kruise/cri/client';
import { LocalNode, type LocalNodeOptions } from '@kruise/local-node';
import { KubeClient, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, inject } from 'vitest';
import { eventually } from './poll.ts';

/** What a local-node test file works with (set once its beforeAll ran). */
export interface LocalNodeEnv {
  cp: ControlPlane;
  client: KubeClient;
  cri: CriClient;
  node: LocalNode;
  podLogsDir: string;
}

/**
 * Registers beforeAll/afterAll for a test file that runs one local node named `nodeName` on the
 * test containerd against a control plane of its own (`controlPlane` options): quick back-off and retries (and `options`); at the end the
 * pods in `default` are deleted and waited for, then everything stops.
 */
export function useLocalNode(
  nodeName: string,
  options: Partial<LocalNodeOptions> = {},
  controlPlane: ControlPlaneOptions = {},
): LocalNodeEnv {
  const env = { podLogsDir: mkdtempSync(join(tmpdir(), 'kruise-pod-logs-')) } as LocalNodeEnv;
  beforeAll(async () => {
    env.cp = await ControlPlane.start(controlPlane);
    env.client = KubeClient.fromString(env.cp.kubeconfig());
    env.cri = new CriClient(inject('criSocket'));
    env.node = new LocalNode({
      client: env.client,
      cri: env.cri,
      nodeName,
      backoffInitialMs: 1000,
      retryMs: 500,
      podLogsDir: env.podLogsDir,
      ...options,
    });
    await env.node.start();
  });
  afterAll(async () => {
    const { client } = env;
    try {
      for (const p of (await client.list(Resources.Pod, { namespace: 'default' })).items)
        await client.delete(Resources.Pod, 'default', p.metadata!.name!, { gracePeriodSeconds: 1 });
      await eventually(
        async () => (await client.list(Resources.Pod, { namespace: 'default' })).items.length === 0,
        30_000,
        50,
      );
    } finally {
      // Whatever the pods did, nothing this file started outlives it.
      await env.node?.stop();
      env.cri?.close();
      await env.cp?.stop();
      rmSync(env.podLogsDir, { recursive: true, force: true });
    }
  });
  return env;
}
