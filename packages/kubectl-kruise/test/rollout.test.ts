import { KruiseResources } from '@kruise/api';
import { Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  cloneSet,
  eventually,
  getCloneSet,
  image,
  podsOf,
  runUntil,
  statusWhen,
} from '../../manager/test/cloneset/harness.ts';
import { expectFailures, usePluginEnv } from './plugin-env.ts';

const { env, plugin } = usePluginEnv();

const uids = (pods: Pod[]) => pods.map((p) => p.metadata!.uid).sort();
const containersOf = async (name: string) =>
  (await getCloneSet(env.client, name)).spec!.template.spec!.containers;

describe('kubectl kruise rollout and set on a CloneSet', () => {
  it('set image changes only the image: the update is in place and every pod keeps its UID', async () => {
    await env.client.create(KruiseResources.CloneSet, {
      ...cloneSet('inplace', {
        replicas: 2,
        updateStrategy: { type: 'InPlaceIfPossible' },
        template: {
          metadata: { labels: { app: 'inplace' } },
          spec: {
            containers: [
              { name: 'main', image: 'busybox:v1', env: [{ name: 'MODE', value: 'a' }] },
              { name: 'side', image: 'busybox:v1' },
            ],
          },
        },
      }),
    });
    const before = await runUntil(env.client, 'inplace', (pods) => (pods.length === 2 ? pods : undefined));
    const r = await plugin.kruise(['set', 'image', 'cloneset/inplace', 'main=busybox:v2']);
    expect(r).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/inplace image updated\n', err: '' });
    const containers = await containersOf('inplace');
    expect(containers.map((c) => [c.name, c.image])).toEqual([
      ['main', 'busybox:v2'],
      ['side', 'busybox:v1'],
    ]);
    expect(containers[0]!.env).toEqual([{ name: 'MODE', value: 'a' }]);
    const after = await runUntil(env.client, 'inplace', (pods) =>
      pods.length === 2 && pods.every((p) => image(p) === 'busybox:v2') ? pods : undefined,
    );
    expect(uids(after)).toEqual(uids(before));
    // The same image again changes nothing and prints nothing (kubectl's empty patch).
    const again = await plugin.kruise(['set', 'image', 'cloneset/inplace', 'main=busybox:v2']);
    expect(again).toMatchObject({ code: 0, out: '' });
  });

  it('rollout status follows an update until it is complete', async () => {
    // Paused, the update waits: status must say so, then follow the rollout once resumed.
    expect(await plugin.kruise(['rollout', 'pause', 'cloneset/inplace'])).toMatchObject({ code: 0 });
    const r = await plugin.kruise(['set', 'image', 'cloneset/inplace', '*=busybox:v3']);
    expect(r).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/inplace image updated\n' });
    await statusWhen(env.client, 'inplace', (s) => s.updatedReplicas === 0);
    const once = await plugin.kruise(['rollout', 'status', 'cloneset/inplace', '--watch=false']);
    expect(once).toMatchObject({
      code: 0,
      out: 'Waiting for partitioned roll out to finish: 0 out of 2 new pods have been updated...\n',
    });
    const status = plugin.start(['rollout', 'status', 'cloneset/inplace', '--timeout=90s']);
    await eventually(() => status.out().includes('Waiting for'), 30_000, 50);
    expect(await plugin.kruise(['rollout', 'resume', 'cloneset/inplace'])).toMatchObject({ code: 0 });
    await statusWhen(env.client, 'inplace', (s) => s.updatedReadyReplicas === 2, 30_000);
    const done = await status.done;
    expect(done.code).toBe(0);
    const lines = done.out.trim().split('\n');
    expect(lines[0]).toBe(
      'Waiting for partitioned roll out to finish: 0 out of 2 new pods have been updated...',
    );
    expect(lines.at(-1)).toBe('partitioned roll out complete: 2 new pods have been updated...');
  });

  it('rollout history lists the revisions and shows one revision’s template', async () => {
    const list = await plugin.kruise(['rollout', 'history', 'cloneset/inplace']);
    expect(list).toMatchObject({
      code: 0,
      out: 'cloneset.apps.kruise.io/inplace \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n3         <none>\n\n',
    });
    const one = await plugin.kruise(['rollout', 'history', 'cloneset/inplace', '--revision=1']);
    expect(one.code).toBe(0);
    expect(one.out).toContain('cloneset.apps.kruise.io/inplace with revision #1\nPod Template:\n');
    expect(one.out).toContain('   main:\n    Image:\tbusybox:v1\n');
    expect(one.out).toContain('    Environment:\n      MODE:\ta\n');
    const missing = await plugin.kruise(['rollout', 'history', 'cloneset/inplace', '--revision=9']);
    expect(missing).toMatchObject({ code: 1, err: 'error: unable to find the specified revision\n' });
  });

  it('rollout undo restores the previous template in place, and a named revision', async () => {
    const before = uids(await podsOf(env.client, 'inplace'));
    const undo = await plugin.kruise(['rollout', 'undo', 'cloneset/inplace']);
    expect(undo).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/inplace rolled back\n', err: '' });
    // Revision 2 is `set image main=busybox:v2` (side kept busybox:v1).
    expect((await containersOf('inplace')).map((c) => c.image)).toEqual(['busybox:v2', 'busybox:v1']);
    const pods = await runUntil(env.client, 'inplace', (ps) =>
      ps.length === 2 && ps.every((p) => p.spec!.containers[1]!.image === 'busybox:v1') ? ps : undefined,
    );
    expect(uids(pods)).toEqual(before);
    const first = await plugin.kruise(['rollout', 'undo', 'cloneset/inplace', '--to-revision=1']);
    expect(first).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/inplace rolled back\n' });
    expect((await containersOf('inplace')).map((c) => c.image)).toEqual(['busybox:v1', 'busybox:v1']);
    // The controller renumbers a reused revision as the newest: 2 became 4, then 1 became 5.
    const history = await plugin.kruise(['rollout', 'history', 'cloneset/inplace']);
    const numbers = history.out
      .trim()
      .split('\n')
      .slice(2)
      .map((row) => Number(row.split(' ')[0]));
    expect(numbers).toEqual([3, 4, 5]);
    const same = await plugin.kruise(['rollout', 'undo', 'cloneset/inplace', '--to-revision=5']);
    expect(same).toMatchObject({
      code: 0,
      err: '',
      out: 'cloneset.apps.kruise.io/inplace skipped rollback (current template already matches revision 5)\n',
    });
    const dry = await plugin.kruise([
      'rollout',
      'undo',
      'cloneset/inplace',
      '--to-revision=3',
      '--dry-run=client',
    ]);
    expect(dry.out).toContain('cloneset.apps.kruise.io/inplace will roll back to Pod Template:\n');
    expect(dry.out).toContain('    Image:\tbusybox:v3\n');
    expect((await containersOf('inplace')).map((c) => c.image)).toEqual(['busybox:v1', 'busybox:v1']);
    const gone = await plugin.kruise(['rollout', 'undo', 'cloneset/inplace', '--to-revision=42']);
    expect(gone).toMatchObject({ code: 1, err: 'error: unable to find specified revision 42 in history\n' });
  });

  it('rollout pause and resume toggle spec.updateStrategy.paused with kruise-tools’ messages', async () => {
    const pause = await plugin.kruise(['rollout', 'pause', 'cloneset/inplace']);
    expect(pause).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/inplace paused\n' });
    expect((await getCloneSet(env.client, 'inplace')).spec!.updateStrategy!.paused).toBe(true);
    const twice = await plugin.kruise(['rollout', 'pause', 'cloneset/inplace']);
    expect(twice).toMatchObject({
      code: 1,
      err: 'error: clonesets.apps.kruise.io "inplace" is already paused\n',
    });
    const resume = await plugin.kruise(['rollout', 'resume', 'cloneset/inplace']);
    expect(resume).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/inplace resumed\n' });
    expect((await getCloneSet(env.client, 'inplace')).spec!.updateStrategy!.paused).toBe(false);
    const notPaused = await plugin.kruise(['rollout', 'resume', 'cloneset/inplace']);
    expect(notPaused).toMatchObject({
      code: 1,
      err: 'error: clonesets.apps.kruise.io "inplace" is not paused\n',
    });
  });

  it('set env, resources and serviceaccount edit the template; env changes recreate the pods', async () => {
    await env.client.create(KruiseResources.CloneSet, cloneSet('recreate', { replicas: 1 }));
    const before = uids(await runUntil(env.client, 'recreate', (p) => (p.length === 1 ? p : undefined)));
    const e = await plugin.kruise(['set', 'env', 'cloneset/recreate', 'A=1', '-e', 'B=2']);
    expect(e).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/recreate env updated\n' });
    const list = await plugin.kruise(['set', 'env', 'cloneset/recreate', '--list']);
    expect(list.out).toBe('# clonesets recreate, container main\nB=2\nA=1\n');
    const removed = await plugin.kruise(['set', 'env', 'cloneset/recreate', 'B-']);
    expect(removed).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/recreate env updated\n' });
    expect((await containersOf('recreate'))[0]!.env).toEqual([{ name: 'A', value: '1' }]);
    const after = await runUntil(env.client, 'recreate', (pods) =>
      pods.length === 1 && pods[0]!.spec!.containers[0]!.env?.some((v) => v.name === 'A') ? pods : undefined,
    );
    expect(uids(after)).not.toEqual(before);
    const res = await plugin.kruise([
      'set',
      'resources',
      'cloneset/recreate',
      '-c',
      'main',
      '--limits=cpu=200m,memory=512Mi',
      '--requests=cpu=100m',
    ]);
    expect(res).toMatchObject({
      code: 0,
      out: 'cloneset.apps.kruise.io/recreate resource requirements updated\n',
    });
    expect((await containersOf('recreate'))[0]!.resources).toEqual({
      limits: { cpu: '200m', memory: '512Mi' },
      requests: { cpu: '100m' },
    });
    // the account must exist: the ServiceAccount admission refuses pods naming a missing one
    await env.client.create(Resources.ServiceAccount, { metadata: { name: 'robot', namespace: 'default' } });
    const sa = await plugin.kruise(['set', 'serviceaccount', 'cloneset', 'recreate', 'robot']);
    expect(sa).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/recreate serviceaccount updated\n' });
    expect((await getCloneSet(env.client, 'recreate')).spec!.template.spec!.serviceAccountName).toBe('robot');
  });

  it('rollout restart stamps RESTARTED_AT into every container, which recreates the pods', async () => {
    const before = uids(await runUntil(env.client, 'recreate', (p) => (p.length === 1 ? p : undefined)));
    const r = await plugin.kruise(['rollout', 'restart', 'cloneset/recreate']);
    expect(r).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/recreate restarted\n', err: '' });
    const stamped = (await containersOf('recreate'))[0]!.env!.find((v) => v.name === 'RESTARTED_AT');
    expect(stamped?.value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await runUntil(env.client, 'recreate', (pods) =>
      pods.length === 1 && !before.includes(pods[0]!.metadata!.uid) ? pods : undefined,
    );
  });

  it('answers bad arguments with kubectl’s messages and exit code 1', async () => {
    const cases: [string[], string][] = [
      [['rollout', 'status'], 'error: required resource not specified\n'],
      [['rollout', 'undo'], 'error: required resource not specified\n'],
      [
        ['rollout', 'frob', 'cloneset/inplace'],
        `error: unknown command "frob"\nSee 'kubectl kruise rollout -h' for help and examples\n`,
      ],
      [
        ['rollout', 'undo', 'cloneset/inplace', '--to-revision=x'],
        `error: invalid argument "x" for "--to-revision" flag: strconv.ParseInt: parsing "x": invalid syntax\nSee 'kubectl kruise rollout undo --help' for usage.\n`,
      ],
      [['set', 'image', 'cloneset/inplace'], 'error: at least one image update is required\n'],
      [
        ['set', 'image', 'cloneset/inplace', 'nope=busybox:v9'],
        'error: unable to find container named "nope"\n',
      ],
      [['set', 'env', 'cloneset/inplace'], 'error: at least one environment variable must be provided\n'],
      [
        ['set', 'resources', 'cloneset/inplace'],
        'error: you must specify an update to requests or limits (in the form of --requests/--limits)\n',
      ],
      [['set', 'serviceaccount'], 'error: serviceaccount is required\n'],
      [
        ['rollout', 'history', 'cloneset/missing'],
        'Error from server (NotFound): clonesets.apps.kruise.io "missing" not found\n',
      ],
    ];
    await expectFailures(plugin, cases);
    expect((await containersOf('inplace')).map((c) => c.image)).toEqual(['busybox:v1', 'busybox:v1']);
  });
});
