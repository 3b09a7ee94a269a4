import { KruiseResources } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CloneSetEnv,
  cloneSet,
  podsOf,
  runPod,
  runUntil,
  startCloneSetEnv,
} from '../../../manager/test/cloneset/harness.ts';
import { restartInPlace } from '../../src/restart-in-place/runner.ts';
import { RESTARTABLE_KINDS } from '../../src/restart-in-place/workload.ts';

/**
 * The restart loop against the embedded control plane and kruise-manager (webhooks, the CRR and
 * CloneSet controllers). No node runs here: the test plays kubelet (pods Running and Ready) and
 * kruise-daemon (a request's containers Succeeded). The real node's part is in
 * test/e2e/kubectl-kruise.test.ts.
 */
let env: CloneSetEnv;
beforeAll(async () => {
  env = await startCloneSetEnv();
});
afterAll(() => env?.stop());

/**
 * Plays kubelet and kruise-daemon until stopped (the daemon part only once `daemonReady` holds);
 * records the pods whose requests it completed.
 */
function playNode(daemonReady: () => Promise<boolean>) {
  let playing = true;
  const completed: string[] = [];
  const loop = (async () => {
    while (playing) {
      for (const p of await podsOf(env.client, 'ipr')) {
        const ready = p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (!ready) await runPod(env.client, p).catch(() => undefined);
      }
      const crrs = (await daemonReady())
        ? (await env.client.list(KruiseResources.ContainerRecreateRequest, { namespace: 'default' })).items
        : [];
      for (const c of crrs as KubeObject[]) {
        if (c.status?.phase === 'Completed') continue;
        await env.client
          .mergePatchStatus(KruiseResources.ContainerRecreateRequest, 'default', c.metadata!.name, {
            status: {
              phase: 'Completed',
              completionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
              containerRecreateStates: c.spec.containers.map((x: { name: string }) => ({
                name: x.name,
                phase: 'Succeeded',
                isKilled: true,
              })),
            },
          })
          .then(() => completed.push(c.spec.podName))
          .catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    completed,
    stop: async () => {
      playing = false;
      await loop;
    },
  };
}

describe('restartInPlace', () => {
  it('restarts the pods that existed when it began, each once, and leaves a pod created meanwhile alone', async () => {
    await env.client.create(
      KruiseResources.CloneSet,
      cloneSet('ipr', { replicas: 3, updateStrategy: { maxUnavailable: 1 } }),
    );
    const before = await runUntil(env.client, 'ipr', (p) => (p.length === 3 ? p : undefined));
    // the restarts wait for the scale-up below, so the new pod appears while they run
    const node = playNode(async () => (await podsOf(env.client, 'ipr')).length === 4);
    const lines: string[] = [];
    let scaled = false;
    const record = await restartInPlace(env.client, {
      kind: RESTARTABLE_KINDS.CloneSet!,
      resource: KruiseResources.CloneSet,
      what: 'cloneset.apps.kruise.io/ipr',
      namespace: 'default',
      name: 'ipr',
      reason: 'test',
      timing: { unreadyGracePeriodSeconds: 0, minStartedSeconds: 0 },
      pollMs: 100,
      timeoutMs: 60_000,
      out: (line) => {
        lines.push(line);
        // a scale-up while the restart runs (a second later: creation times are whole seconds)
        if (!scaled && line.startsWith('restarting 3 pods')) {
          scaled = true;
          setTimeout(
            () =>
              void env.client.mergePatch(KruiseResources.CloneSet, 'default', 'ipr', {
                spec: { replicas: 4 },
              }),
            1100,
          );
        }
      },
    });
    await node.stop();
    const names = before.map((p) => p.metadata!.name!).sort();
    expect([...node.completed].sort()).toEqual(names);
    expect(lines.filter((l) => l.includes('restarted in place ('))).toHaveLength(3);
    expect(lines.at(-1)).toBe('cloneset.apps.kruise.io/ipr restarted in place');
    const after = await podsOf(env.client, 'ipr');
    expect(after).toHaveLength(4);
    const marked = after.filter((p) => p.metadata?.annotations?.['apps.kruise.io/in-place-restarted']);
    expect(marked.map((p) => p.metadata!.name).sort()).toEqual(names);
    expect(record.completedAt).toEqual(expect.any(String));
  }, 90_000);
});
