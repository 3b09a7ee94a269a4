import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KruiseResources, type PodUnavailableBudget } from '@kruise/api';
import { KubeClient, type KubeObject } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { fencedBlocks } from '../../../../test/support/doc-blocks.ts';
import {
  type CloneSetEnv,
  cloneSet,
  eventually,
  runUntil,
  startCloneSetEnv,
} from '../../../manager/test/cloneset/harness.ts';
import type { RestartRecord } from '../../src/restart-in-place/records.ts';
import { restartInPlace } from '../../src/restart-in-place/runner.ts';
import { RESTARTABLE_KINDS } from '../../src/restart-in-place/workload.ts';
import { playNode } from './play-node.ts';

/**
 * The restart under a PodUnavailableBudget, against the embedded control plane and kruise-manager.
 * The test plays kubelet and kruise-daemon (play-node.ts); kruise-manager's budget controller
 * counts the pods and gives a unit back once a restarted pod is Ready again. The restart runs as a
 * user bound to the Role the guide gives (docs/kubectl-kruise.md).
 */
type Pub = PodUnavailableBudget & KubeObject;
/** The line a restart waits under the budget `<app>-pub` with. */
const waiting = (app: string) => `waiting: podunavailablebudget/${app}-pub allows no more unavailable pods`;
const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

let env: CloneSetEnv;
beforeAll(async () => {
  env = await startCloneSetEnv();
  const guide = readFileSync(join(root, 'docs/kubectl-kruise.md'), 'utf8');
  const rbac = fencedBlocks(guide).find((b) => b.info[0] === 'yaml' && b.text.includes('kind: Role\n'))!;
  for (const doc of parseAllDocuments(rbac.text)) {
    const obj = doc.toJSON() as KubeObject;
    await env.client.request(
      'POST',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/default/${obj.kind === 'Role' ? 'roles' : 'rolebindings'}`,
      { body: obj },
    );
  }
});
afterAll(() => env?.stop());

const getPub = (app: string) =>
  env.client.get<Pub>(KruiseResources.PodUnavailableBudget, 'default', `${app}-pub`);

/** A client acting as `user` (the guide's Role binds `jane`). */
const clientFor = (user: string) =>
  KubeClient.fromString(
    env.cp.kubeconfig(env.cp.tokens.addStaticToken({ username: user, groups: [] }), user),
  );

/**
 * A CloneSet of 3 pods that would restart all at once and the budget `<app>-pub` over them
 * (maxUnavailable 1), once kruise-manager's controller counts all 3 Ready and allows one; `hold`
 * has the budget protect 4 replicas (`pub.kruise.io/protect-total-replicas`), so it allows none.
 */
async function workloadUnderBudget(app: string, hold = false): Promise<void> {
  const template = {
    metadata: { labels: { app } },
    spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
  };
  await env.client.create(
    KruiseResources.CloneSet,
    cloneSet(app, { replicas: 3, updateStrategy: { maxUnavailable: 3 }, template }),
  );
  await env.client.create<Pub>(KruiseResources.PodUnavailableBudget, {
    metadata: {
      name: `${app}-pub`,
      namespace: 'default',
      ...(hold ? { annotations: { 'pub.kruise.io/protect-total-replicas': '4' } } : {}),
    },
    spec: { selector: { matchLabels: { app } }, maxUnavailable: 1 },
  });
  const ready = (p: KubeObject) =>
    p.status?.conditions?.some(
      (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
    );
  const pods = await runUntil(env.client, app, (p) => (p.length === 3 && p.every(ready) ? p : undefined));
  expect(pods).toHaveLength(3);
  await eventually(async () => {
    const s = (await getPub(app)).status;
    expect(s).toMatchObject(
      hold
        ? { totalReplicas: 4, desiredAvailable: 3, unavailableAllowed: 0 }
        : { totalReplicas: 3, desiredAvailable: 2, unavailableAllowed: 1 },
    );
    return true;
  });
  const marked = await runUntil(env.client, app, (p) =>
    p.every((x) => x.metadata?.annotations?.['kruise.io/related-pub'] === `${app}-pub`) ? p : undefined,
  );
  expect(marked).toHaveLength(3);
}

/** Collects every pod the budget records while running (the controller's view, polled). */
function recordsOf(app: string): { seen: Set<string>; stop(): Promise<void> } {
  const seen = new Set<string>();
  let on = true;
  const loop = (async () => {
    while (on) {
      const s = (await getPub(app)).status;
      for (const p of [...Object.keys(s?.unavailablePods ?? {}), ...Object.keys(s?.disruptedPods ?? {})])
        seen.add(p);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    seen,
    stop: async () => {
      on = false;
      await loop;
    },
  };
}

function restart(client: KubeClient, app: string, out: (line: string) => void): Promise<RestartRecord> {
  return restartInPlace(client, {
    kind: RESTARTABLE_KINDS.CloneSet!,
    resource: KruiseResources.CloneSet,
    what: `cloneset.apps.kruise.io/${app}`,
    namespace: 'default',
    name: app,
    reason: 'test',
    timing: { unreadyGracePeriodSeconds: 0, minStartedSeconds: 0 },
    pollMs: 100,
    timeoutMs: 60_000,
    out,
  });
}

/** The most pod restarts the lines show under way at once. */
function mostAtOnce(lines: string[]): number {
  let now = 0;
  let most = 0;
  for (const l of lines) {
    if (/^pod\/\S+ restarting in place \(/.test(l)) most = Math.max(most, ++now);
    if (/^pod\/\S+ restarted in place \(/.test(l)) now--;
  }
  return most;
}

describe('rollout restart --in-place under a PodUnavailableBudget', () => {
  it('restarts one pod at a time, each recorded in the budget, waiting while the budget allows none', async () => {
    await workloadUnderBudget('pubweb');
    const node = playNode(env.client, 'pubweb');
    const lines: string[] = [];
    const seen: Promise<[string, Pub]>[] = [];
    await restart(clientFor('jane'), 'pubweb', (line) => {
      lines.push(line);
      const started = /^pod\/(\S+) restarting in place/.exec(line)?.[1];
      if (started) seen.push(getPub('pubweb').then((p) => [started, p]));
    });
    await node.stop();
    expect(lines[0]).toMatch(/at most 3 at a time$/);
    expect(mostAtOnce(lines)).toBe(1);
    expect(lines.filter((l) => l.includes('restarted in place ('))).toHaveLength(3);
    // right after each start the budget has the pod recorded and no disruption left
    const snapshots = await Promise.all(seen);
    expect(snapshots).toHaveLength(3);
    for (const [pod, pub] of snapshots) {
      expect(Object.keys(pub.status?.unavailablePods ?? {})).toEqual([pod]);
      expect(pub.status?.unavailableAllowed).toBe(0);
    }
    expect(lines.filter((l) => l === waiting('pubweb')).length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.startsWith('warning:'))).toBe(false);
  }, 90_000);

  it('holds the first pod back while unavailableAllowed is 0, and goes on once the controller allows one', async () => {
    // one pod marked unavailable: the budget allows no other to go
    await workloadUnderBudget('pubzero', true);
    const node = playNode(env.client, 'pubzero');
    const lines: string[] = [];
    const done = restart(clientFor('jane'), 'pubzero', (line) => lines.push(line));
    await eventually(() => expect(lines).toContain(waiting('pubzero')));
    await new Promise((r) => setTimeout(r, 1000)); // ten polls
    expect(lines.filter((l) => l === waiting('pubzero'))).toHaveLength(1);
    expect(lines.some((l) => l.includes('restarting in place ('))).toBe(false);
    const crrs = await env.client.list(KruiseResources.ContainerRecreateRequest, { namespace: 'default' });
    expect(crrs.items.filter((c: KubeObject) => c.spec.podName.startsWith('pubzero-'))).toEqual([]);
    expect((await getPub('pubzero')).status?.unavailablePods ?? {}).toEqual({});
    // the budget protects the 3 replicas there are: 3 available − 2 desired, one may go
    await env.client.mergePatch(KruiseResources.PodUnavailableBudget, 'default', 'pubzero-pub', {
      metadata: { annotations: { 'pub.kruise.io/protect-total-replicas': '3' } },
    });
    await done;
    await node.stop();
    expect(lines.filter((l) => l.includes('restarted in place ('))).toHaveLength(3);
    expect(mostAtOnce(lines)).toBe(1);
  }, 90_000);

  it('without update on podunavailablebudgets/status warns once and keeps within the budget as read', async () => {
    const role = await env.client.request(
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/kruise-in-place-restart',
    );
    await env.client.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      body: {
        metadata: { name: 'no-pub-status' },
        rules: role.rules.filter(
          (r: { resources: string[] }) => !r.resources.includes('podunavailablebudgets/status'),
        ),
      },
    });
    await env.client.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: {
        metadata: { name: 'no-pub-status' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'no-pub-status' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'joe' }],
      },
    });
    await workloadUnderBudget('pubro');
    const node = playNode(env.client, 'pubro');
    const records = recordsOf('pubro');
    const lines: string[] = [];
    await restart(clientFor('joe'), 'pubro', (line) => lines.push(line));
    await records.stop();
    await node.stop();
    const warnings = lines.filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /cannot update podunavailablebudgets\/status \(policy\.kruise\.io\) in namespace default/,
    );
    expect(lines.filter((l) => l.includes('restarted in place ('))).toHaveLength(3);
    expect(mostAtOnce(lines)).toBe(1);
    expect([...records.seen]).toEqual([]);
  }, 90_000);
});
