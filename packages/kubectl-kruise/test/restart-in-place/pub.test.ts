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
import { playPubController } from './play-pub.ts';

/**
 * The restart under a PodUnavailableBudget, against the embedded control plane and kruise-manager.
 * The test plays kubelet, kruise-daemon (play-node.ts) and the PUB controller (play-pub.ts); the
 * restart runs as a user bound to the Role the guide gives (docs/kubectl-kruise.md).
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

/** A client acting as `user` (the guide's Role binds `jane`). */
const clientFor = (user: string) =>
  KubeClient.fromString(
    env.cp.kubeconfig(env.cp.tokens.addStaticToken({ username: user, groups: [] }), user),
  );

/**
 * A CloneSet of 3 pods that would restart all at once, its pods annotated with the budget
 * `<app>-pub` (maxUnavailable 1), and the budget with the status its controller would write.
 */
async function workloadUnderBudget(
  app: string,
  status: Partial<NonNullable<Pub['status']>> = {},
): Promise<void> {
  const template = {
    metadata: { labels: { app }, annotations: { 'kruise.io/related-pub': `${app}-pub` } },
    spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
  };
  await env.client.create(
    KruiseResources.CloneSet,
    cloneSet(app, { replicas: 3, updateStrategy: { maxUnavailable: 3 }, template }),
  );
  const pub = await env.client.create<Pub>(KruiseResources.PodUnavailableBudget, {
    metadata: { name: `${app}-pub`, namespace: 'default' },
    spec: { selector: { matchLabels: { app } }, maxUnavailable: 1 },
  });
  // the manager's PUB controller, first round
  await env.client.updateStatus(KruiseResources.PodUnavailableBudget, {
    ...pub,
    status: {
      observedGeneration: pub.metadata!.generation,
      totalReplicas: 3,
      desiredAvailable: 2,
      currentAvailable: 3,
      unavailableAllowed: 1,
      ...status,
    },
  });
  const pods = await runUntil(env.client, app, (p) => (p.length === 3 ? p : undefined));
  expect(pods.every((p) => p.metadata?.annotations?.['kruise.io/related-pub'] === `${app}-pub`)).toBe(true);
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

const getPub = (app: string) =>
  env.client.get<Pub>(KruiseResources.PodUnavailableBudget, 'default', `${app}-pub`);

describe('rollout restart --in-place under a PodUnavailableBudget', () => {
  it('restarts one pod at a time, each recorded in the budget, waiting while the budget allows none', async () => {
    await workloadUnderBudget('pubweb');
    const node = playNode(env.client, 'pubweb');
    const controller = playPubController(env.client, 'pubweb-pub', 'pubweb');
    const lines: string[] = [];
    const seen: Promise<[string, Pub]>[] = [];
    await restart(clientFor('jane'), 'pubweb', (line) => {
      lines.push(line);
      const started = /^pod\/(\S+) restarting in place/.exec(line)?.[1];
      if (started) seen.push(getPub('pubweb').then((p) => [started, p]));
    });
    await controller.stop();
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
    // the status says no disruption is left though every pod is Ready (another took it)
    await workloadUnderBudget('pubzero', { unavailableAllowed: 0 });
    const node = playNode(env.client, 'pubzero');
    const controller = playPubController(env.client, 'pubzero-pub', 'pubzero');
    controller.paused = true;
    const lines: string[] = [];
    const done = restart(clientFor('jane'), 'pubzero', (line) => lines.push(line));
    await eventually(() => expect(lines).toContain(waiting('pubzero')));
    await new Promise((r) => setTimeout(r, 1000)); // ten polls
    expect(lines.filter((l) => l === waiting('pubzero'))).toHaveLength(1);
    expect(lines.some((l) => l.includes('restarting in place ('))).toBe(false);
    const crrs = await env.client.list(KruiseResources.ContainerRecreateRequest, { namespace: 'default' });
    expect(crrs.items.filter((c: KubeObject) => c.spec.podName.startsWith('pubzero-'))).toEqual([]);
    expect((await getPub('pubzero')).status?.unavailablePods ?? {}).toEqual({});
    controller.paused = false; // unavailableAllowed: 3 available − 2 desired
    await done;
    await controller.stop();
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
    const controller = playPubController(env.client, 'pubro-pub', 'pubro');
    const lines: string[] = [];
    await restart(clientFor('joe'), 'pubro', (line) => lines.push(line));
    await controller.stop();
    await node.stop();
    const warnings = lines.filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /cannot update podunavailablebudgets\/status \(policy\.kruise\.io\) in namespace default/,
    );
    expect(lines.filter((l) => l.includes('restarted in place ('))).toHaveLength(3);
    expect(mostAtOnce(lines)).toBe(1);
    expect([...controller.recorded]).toEqual([]);
  }, 90_000);
});
