import { KruiseResources, type StatefulSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  getSet,
  observedStatus,
  podsOf,
  runSetUntil,
  statefulSet,
} from '../../manager/test/statefulset/harness.ts';
import { expectFailures, expectSuccess, usePluginEnv } from './plugin-env.ts';
import { playNode } from './restart-in-place/play-node.ts';

/**
 * `kubectl kruise` on an Advanced StatefulSet (apps.kruise.io StatefulSet, `asts`) over the
 * control plane and kruise-manager; the test plays kubelet.
 */
const { env, plugin } = usePluginEnv();

const uids = (pods: Pod[]) => pods.map((p) => p.metadata!.uid);
const images = async (name: string) =>
  (await getSet(env.client, name)).spec!.template.spec!.containers.map((c) => c.image);
/** The set's revision numbers, as `rollout history` lists them. */
const revisionNumbers = async (name: string) =>
  (await expectSuccess(plugin, ['rollout', 'history', `asts/${name}`]))
    .trim()
    .split('\n')
    .slice(2)
    .map((row) => Number(row.split(' ')[0]));

/** Creates a set and plays kubelet until all its replicas are ready; gives its pods. */
async function readySet(name: string, spec: Record<string, unknown>): Promise<Pod[]> {
  await env.client.create(KruiseResources.StatefulSet, statefulSet(name, spec));
  await runSetUntil(
    env.client,
    name,
    async () => (await observedStatus(env.client, name))?.readyReplicas === (spec.replicas ?? 1),
  );
  return podsOf(env.client, name);
}

/** Plays kubelet until the set has observed its spec and every pod runs `image` in place of `before`. */
const inPlaceAt = (name: string, image: string, before: Pod[]) =>
  runSetUntil(env.client, name, async () => {
    const s = await observedStatus(env.client, name);
    const pods = await podsOf(env.client, name);
    return (
      s?.updatedReadyReplicas === before.length &&
      pods.every((p) => p.spec!.containers[0]!.image === image) &&
      JSON.stringify(uids(pods)) === JSON.stringify(uids(before))
    );
  });

const IN_PLACE = {
  replicas: 2,
  updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } },
  template: {
    metadata: { labels: { app: 'db' } },
    spec: {
      readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
      containers: [
        { name: 'main', image: 'busybox:v1', env: [{ name: 'MODE', value: 'a' }] },
        { name: 'side', image: 'busybox:v1' },
      ],
    },
  },
};

describe('kubectl kruise on an Advanced StatefulSet', () => {
  it('names it asts or statefulset(s)/sts/asts qualified by the group (and version); plain sts is the built-in kind', async () => {
    await env.client.create(KruiseResources.StatefulSet, statefulSet('sized', { replicas: 0 }));
    const names = [
      'asts/sized',
      'statefulsets.apps.kruise.io/sized',
      'statefulset.apps.kruise.io/sized',
      'sts.apps.kruise.io/sized',
      'asts.apps.kruise.io/sized',
      'statefulsets.v1beta1.apps.kruise.io/sized',
      'StatefulSet.v1alpha1.apps.kruise.io/sized',
    ];
    for (const [i, name] of names.entries()) {
      const r = await plugin.kruise(['scale', `--replicas=${i}`, name]);
      expect(r).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/sized scaled\n', err: '' });
      expect((await getSet(env.client, 'sized')).spec!.replicas).toBe(i);
    }
    const builtIn =
      'is the built-in StatefulSet (apps/v1), which kubectl kruise does not handle (use kubectl); an Advanced StatefulSet is "asts" or "statefulsets.apps.kruise.io"\n';
    await expectFailures(plugin, [
      [['scale', '--replicas=1', 'sts/sized'], `error: "sts" ${builtIn}`],
      [['scale', '--replicas=1', 'statefulset', 'sized'], `error: "statefulset" ${builtIn}`],
      [['rollout', 'status', 'statefulsets.apps/sized'], `error: "statefulsets.apps" ${builtIn}`],
      [
        ['scale', '--current-replicas=7', '--replicas=1', 'asts/sized'],
        'error: Expected replicas to be 7, was 6\n',
      ],
      [
        ['rollout', 'history', 'asts/missing'],
        'Error from server (NotFound): statefulsets.apps.kruise.io "missing" not found\n',
      ],
    ]);
    // in a file: kind StatefulSet of either served version of apps.kruise.io; apps/v1 is not ours
    const file = plugin.write(
      'sized.yaml',
      'apiVersion: apps.kruise.io/v1alpha1\nkind: StatefulSet\nmetadata: {name: sized}\n',
    );
    const fromFile = await plugin.kruise(['scale', '-f', file, '--replicas=6']);
    expect(fromFile).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/sized scaled\n' });
    const native = plugin.write(
      'native.yaml',
      'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: sized}\n',
    );
    const refused = await plugin.kruise(['scale', '-f', native, '--replicas=1']);
    expect(refused).toMatchObject({
      code: 1,
      err: `error: unable to recognize "${native}": no matches for kind "StatefulSet" in version "apps/v1"\n`,
    });
    const precondition = await plugin.kruise([
      'scale',
      '--current-replicas=6',
      '--replicas=0',
      'asts',
      'sized',
    ]);
    expect(precondition).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/sized scaled\n' });
    expect((await getSet(env.client, 'sized')).spec!.replicas).toBe(0);
  });

  it('set image updates the pods in place; rollout status follows the update from pause to its end', async () => {
    const before = await readySet('db', IN_PLACE);
    const pause = await plugin.kruise(['rollout', 'pause', 'asts/db']);
    expect(pause).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/db paused\n', err: '' });
    expect((await getSet(env.client, 'db')).spec!.updateStrategy!.rollingUpdate!.paused).toBe(true);
    const set = await plugin.kruise(['set', 'image', 'asts/db', 'main=busybox:v2']);
    expect(set).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/db image updated\n', err: '' });
    expect(await images('db')).toEqual(['busybox:v2', 'busybox:v1']);
    await eventually(async () => (await observedStatus(env.client, 'db'))?.updatedReplicas === 0);
    const once = await plugin.kruise(['rollout', 'status', 'asts/db', '--watch=false']);
    expect(once).toMatchObject({
      code: 0,
      out: 'Waiting for partitioned roll out to finish:0 out of 2 new pods has been updated...\n',
    });
    const status = plugin.start(['rollout', 'status', 'asts/db', '--timeout=90s']);
    await eventually(() => status.out().includes('Waiting for'), 30_000, 50);
    const resume = await plugin.kruise(['rollout', 'resume', 'asts/db']);
    expect(resume).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/db resumed\n' });
    await inPlaceAt('db', 'busybox:v2', before);
    const done = await status.done;
    expect(done.code).toBe(0);
    const lines = done.out.trim().split('\n');
    expect(lines[0]).toBe(
      'Waiting for partitioned roll out to finish:0 out of 2 new pods has been updated...',
    );
    const revision = (await getSet(env.client, 'db')).status!.updateRevision;
    expect(lines.at(-1)).toBe(
      `Advanced StatefulSet rolling update complete 2 pods at revision ${revision}...`,
    );
  });

  it('rollout history lists the ControllerRevisions and shows one revision’s template', async () => {
    expect(await expectSuccess(plugin, ['rollout', 'history', 'asts/db'])).toBe(
      'statefulset.apps.kruise.io/db \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
    );
    const one = await expectSuccess(plugin, ['rollout', 'history', 'asts/db', '--revision=1']);
    expect(one).toContain('statefulset.apps.kruise.io/db with revision #1\nPod Template:\n');
    expect(one).toContain('   main:\n    Image:\tbusybox:v1\n');
    expect(one).toContain('    Environment:\n      MODE:\ta\n');
    const missing = await plugin.kruise(['rollout', 'history', 'asts/db', '--revision=9']);
    expect(missing).toMatchObject({ code: 1, err: 'error: unable to find the specified revision\n' });
  });

  it('rollout undo restores the previous template in place, and a named revision', async () => {
    const before = await podsOf(env.client, 'db');
    const undo = await plugin.kruise(['rollout', 'undo', 'asts/db']);
    expect(undo).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/db rolled back\n', err: '' });
    expect(await images('db')).toEqual(['busybox:v1', 'busybox:v1']);
    await inPlaceAt('db', 'busybox:v1', before);
    // the controller renumbers the revision it reuses as the newest: 1 became 3
    expect(await revisionNumbers('db')).toEqual([2, 3]);
    const same = await plugin.kruise(['rollout', 'undo', 'asts/db', '--to-revision=3']);
    expect(same).toMatchObject({
      code: 0,
      out: 'statefulset.apps.kruise.io/db skipped rollback (current template already matches revision 3)\n',
    });
    const named = await plugin.kruise(['rollout', 'undo', 'asts/db', '--to-revision=2']);
    expect(named).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/db rolled back\n' });
    expect(await images('db')).toEqual(['busybox:v2', 'busybox:v1']);
    await inPlaceAt('db', 'busybox:v2', before);
    const gone = await plugin.kruise(['rollout', 'undo', 'asts/db', '--to-revision=42']);
    expect(gone).toMatchObject({ code: 1, err: 'error: unable to find specified revision 42 in history\n' });
  });

  it('rollout pause and resume toggle spec.updateStrategy.rollingUpdate.paused', async () => {
    await expectSuccess(plugin, ['rollout', 'pause', 'asts/db']);
    const twice = await plugin.kruise(['rollout', 'pause', 'asts/db']);
    expect(twice).toMatchObject({
      code: 1,
      err: 'error: statefulsets.apps.kruise.io "db" is already paused\n',
    });
    await expectSuccess(plugin, ['rollout', 'resume', 'asts/db']);
    expect((await getSet(env.client, 'db')).spec!.updateStrategy!.rollingUpdate!.paused).toBe(false);
    const notPaused = await plugin.kruise(['rollout', 'resume', 'asts/db']);
    expect(notPaused).toMatchObject({
      code: 1,
      err: 'error: statefulsets.apps.kruise.io "db" is not paused\n',
    });
  });

  it('set env and resources edit the template; rollout restart recreates the pods', async () => {
    const before = uids(await readySet('web', { replicas: 1 }));
    const e = await plugin.kruise(['set', 'env', 'asts/web', 'A=1']);
    expect(e).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/web env updated\n', err: '' });
    expect(await expectSuccess(plugin, ['set', 'env', 'asts/web', '--list'])).toBe(
      '# statefulsets web, container main\nA=1\n',
    );
    const res = await plugin.kruise(['set', 'resources', 'asts/web', '-c', 'main', '--limits=cpu=200m']);
    expect(res).toMatchObject({
      code: 0,
      out: 'statefulset.apps.kruise.io/web resource requirements updated\n',
    });
    const main = () => getSet(env.client, 'web').then((s) => s.spec!.template.spec!.containers[0]!);
    expect(await main()).toMatchObject({
      env: [{ name: 'A', value: '1' }],
      resources: { limits: { cpu: '200m' } },
    });
    const recreated = await runSetUntil(env.client, 'web', async () => {
      const pods = await podsOf(env.client, 'web');
      return pods.length === 1 &&
        pods[0]!.spec!.containers[0]!.env?.length === 1 &&
        !before.includes(pods[0]!.metadata!.uid)
        ? uids(pods)
        : undefined;
    });
    const r = await plugin.kruise(['rollout', 'restart', 'asts/web']);
    expect(r).toMatchObject({ code: 0, out: 'statefulset.apps.kruise.io/web restarted\n', err: '' });
    expect((await main()).env?.find((v) => v.name === 'RESTARTED_AT')?.value).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    await runSetUntil(env.client, 'web', async () => {
      const pods = await podsOf(env.client, 'web');
      return pods.length === 1 && !recreated.includes(pods[0]!.metadata!.uid);
    });
  });

  it('rollout status refuses an OnDelete set in kubectl’s words', async () => {
    await env.client.create(
      KruiseResources.StatefulSet,
      statefulSet('manual', { replicas: 0, updateStrategy: { type: 'OnDelete' } }),
    );
    await expectFailures(plugin, [
      [
        ['rollout', 'status', 'asts/manual'],
        'error: rollout status is only available for RollingUpdate strategy type\n',
      ],
    ]);
  });

  it('rollout restart --in-place restarts the set’s pods (found by its selector), at most maxUnavailable at a time', async () => {
    const spec = {
      replicas: 3,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
    };
    const before = await readySet('ipr', spec);
    const node = playNode(env.client, 'ipr');
    const r = await plugin.kruise([
      'rollout',
      'restart',
      '--in-place',
      'asts/ipr',
      '--reason=test',
      '--unready-grace-period-seconds=0',
      '--min-started-seconds=0',
      '--timeout=60s',
    ]);
    await node.stop();
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toMatch(
      /^restarting 3 pods of statefulset\.apps\.kruise\.io\/ipr in place \(restart \d{8}-\d{6}\), at most 2 at a time$/,
    );
    expect(lines.at(-1)).toBe('statefulset.apps.kruise.io/ipr restarted in place');
    expect([...node.completed].sort()).toEqual(['ipr-0', 'ipr-1', 'ipr-2']);
    const after = await podsOf(env.client, 'ipr');
    expect(uids(after)).toEqual(uids(before));
    for (const p of after)
      expect(p.metadata!.annotations!['apps.kruise.io/in-place-restarted']).toContain('"test"');
    const set = (await getSet(env.client, 'ipr')) as StatefulSet;
    expect(JSON.parse(set.metadata!.annotations!['apps.kruise.io/in-place-restart']!)).toMatchObject({
      reason: 'test',
      completedAt: expect.any(String),
    });
  });
});
