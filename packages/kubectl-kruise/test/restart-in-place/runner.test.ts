import { KruiseResources } from '@kruise/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CloneSetEnv,
  cloneSet,
  podsOf,
  runUntil,
  startCloneSetEnv,
} from '../../../manager/test/cloneset/harness.ts';
import { restartInPlace } from '../../src/restart-in-place/runner.ts';
import { RESTARTABLE_KINDS } from '../../src/restart-in-place/workload.ts';
import { playNode } from './play-node.ts';

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

describe('restartInPlace', () => {
  it('restarts the pods that existed when it began, each once, and leaves a pod created meanwhile alone', async () => {
    await env.client.create(
      KruiseResources.CloneSet,
      cloneSet('ipr', { replicas: 3, updateStrategy: { maxUnavailable: 1 } }),
    );
    const before = await runUntil(env.client, 'ipr', (p) => (p.length === 3 ? p : undefined));
    // the restarts wait for the scale-up below, so the new pod appears while they run
    const node = playNode(env.client, 'ipr', async () => (await podsOf(env.client, 'ipr')).length === 4);
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
