import { type CloneSet, KruiseResources } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cloneSet, eventually } from '../../manager/test/cloneset/harness.ts';
import { expectFailures, expectSuccess, usePluginEnv } from './plugin-env.ts';

const { env, plugin } = usePluginEnv(async () => {
  await env.client.create(KruiseResources.CloneSet, cloneSet('web', { replicas: 1 }));
});

type Stored = CloneSet & KubeObject;
const stored = () => env.client.get<Stored>(KruiseResources.CloneSet, 'default', 'web');
const mainOf = (cs: Stored) => cs.spec!.template.spec!.containers[0]!;

/** Runs the plugin, expects success and nothing on standard error; gives standard output. */
const ok = (args: string[]) => expectSuccess(plugin, args);

describe('kubectl kruise -o/--output and --dry-run printing the object', () => {
  it('set image -o yaml prints the object as written; --dry-run=client -o json prints it unsent', async () => {
    const written = parse(
      await ok(['set', 'image', 'cloneset/web', 'main=busybox:v2', '-o', 'yaml']),
    ) as Stored;
    expect(written).toMatchObject({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' });
    expect(mainOf(written).image).toBe('busybox:v2');
    // The server's answer to the write (the generation it stored), not the object read before it.
    expect(written.metadata?.generation).toBe((await stored()).metadata?.generation);
    expect(written.metadata?.generation).toBeGreaterThan(1);

    const out = await ok([
      'set',
      'image',
      'cloneset/web',
      'main=busybox:v3',
      '--dry-run=client',
      '-o',
      'json',
    ]);
    expect(out.split('\n')[1]).toBe('    "apiVersion": "apps.kruise.io/v1alpha1",');
    expect(mainOf(JSON.parse(out)).image).toBe('busybox:v3');
    expect(mainOf(await stored()).image).toBe('busybox:v2');
  });

  it('set env, resources and serviceaccount print json, name, or the object a server dry run would store', async () => {
    const env1 = JSON.parse(
      await ok(['set', 'env', 'cloneset/web', 'MODE=a', '--dry-run=server', '-o', 'json']),
    );
    expect(mainOf(env1).env).toEqual([{ name: 'MODE', value: 'a' }]);
    expect(mainOf(await stored()).env).toBeUndefined();

    expect(await ok(['set', 'env', 'cloneset/web', 'MODE=b', '-o', 'name'])).toBe(
      'cloneset.apps.kruise.io/web\n',
    );
    expect(mainOf(await stored()).env).toEqual([{ name: 'MODE', value: 'b' }]);

    const res = JSON.parse(
      await ok(['set', 'resources', 'cloneset', 'web', '--limits=cpu=200m', '-o', 'json']),
    );
    expect(mainOf(res).resources).toEqual({ limits: { cpu: '200m' } });
    expect(mainOf(await stored()).resources).toEqual({ limits: { cpu: '200m' } });

    const sa = parse(
      await ok(['set', 'serviceaccount', 'cloneset/web', 'robot', '--dry-run=client', '-o', 'yaml']),
    );
    expect(sa.spec.template.spec.serviceAccountName).toBe('robot');
    expect((await stored()).spec!.template.spec!.serviceAccountName).toBeUndefined();
  });

  it('scale -o prints the object with its new size; a client dry run prints it and changes nothing', async () => {
    const scaled = JSON.parse(await ok(['scale', '--replicas=3', 'cloneset/web', '-o', 'json'])) as Stored;
    expect(scaled.spec?.replicas).toBe(3);
    expect((await stored()).spec?.replicas).toBe(3);
    const dry = parse(await ok(['scale', '--replicas=5', 'cloneset/web', '--dry-run=client', '-o', 'yaml']));
    expect(dry).toMatchObject({ kind: 'CloneSet', spec: { replicas: 5 } });
    expect(await ok(['scale', '--replicas=5', 'cloneset/web', '--dry-run=server', '-o', 'name'])).toBe(
      'cloneset.apps.kruise.io/web\n',
    );
    expect((await stored()).spec?.replicas).toBe(3);
  });

  it('rollout pause/resume -o print the patched object; restart --dry-run -o prints the stamped template unsent', async () => {
    const paused = JSON.parse(await ok(['rollout', 'pause', 'cloneset/web', '-o', 'json'])) as Stored;
    expect(paused.spec?.updateStrategy?.paused).toBe(true);
    expect(await ok(['rollout', 'resume', 'cloneset/web', '-o', 'name'])).toBe(
      'cloneset.apps.kruise.io/web\n',
    );
    expect((await stored()).spec?.updateStrategy?.paused).toBe(false);

    const dry = parse(await ok(['rollout', 'restart', 'cloneset/web', '--dry-run=client', '-o', 'yaml']));
    expect(mainOf(dry).env?.map((e: { name: string }) => e.name)).toEqual(['MODE', 'RESTARTED_AT']);
    expect(mainOf(await stored()).env).toEqual([{ name: 'MODE', value: 'b' }]);
    expect(await ok(['rollout', 'restart', 'cloneset/web', '--dry-run=server'])).toBe(
      'cloneset.apps.kruise.io/web restarted (server dry run)\n',
    );
    expect(mainOf(await stored()).env).toEqual([{ name: 'MODE', value: 'b' }]);
    expect(await ok(['rollout', 'restart', 'cloneset/web', '-o', 'name'])).toBe(
      'cloneset.apps.kruise.io/web\n',
    );
    expect(mainOf(await stored()).env?.map((e) => e.name)).toEqual(['MODE', 'RESTARTED_AT']);
  });

  it('rollout undo -o prints the restored object; under --dry-run=client it prints it unsent', async () => {
    // Each template is reconciled (its revision recorded) before the next one is set.
    for (const image of ['busybox:v4', 'busybox:v5']) {
      await ok(['set', 'image', 'cloneset/web', `main=${image}`]);
      await eventually(async () => {
        const cs = await stored();
        return cs.status?.observedGeneration === cs.metadata?.generation;
      });
    }
    const dry = await ok(['rollout', 'undo', 'cloneset/web', '--dry-run=client', '-o', 'json']);
    expect(mainOf(JSON.parse(dry)).image).toBe('busybox:v4');
    expect(mainOf(await stored()).image).toBe('busybox:v5');
    const undone = parse(await ok(['rollout', 'undo', 'cloneset/web', '-o', 'yaml']));
    expect(mainOf(undone).image).toBe('busybox:v4');
    expect(mainOf(await stored()).image).toBe('busybox:v4');
  });

  it('-o jsonpath=TEMPLATE prints the fields named, as kubectl does', async () => {
    const image = '{.spec.template.spec.containers[0].image}{"\\n"}';
    expect(await ok(['set', 'image', 'cloneset/web', 'main=busybox:v6', '-o', `jsonpath=${image}`])).toBe(
      'busybox:v6\n',
    );
    const dry = 'jsonpath={.metadata.name} has {.spec.replicas} of {.spec.template.spec.containers[*].name}';
    expect(await ok(['scale', '--replicas=7', 'cloneset/web', '--dry-run=client', '-o', dry])).toBe(
      'web has 7 of main',
    );
    expect((await stored()).spec?.replicas).toBe(3);
    await expectFailures(plugin, [
      [
        ['scale', '--replicas=1', 'cloneset/web', '-o', 'jsonpath'],
        'error: template format specified but no template given\n',
      ],
      [
        ['set', 'image', 'cloneset/web', 'main=x', '-o', 'jsonpath={range .spec}'],
        'error: jsonpath expression {range .spec} in {range .spec} is not supported by kubectl-kruise\n',
      ],
    ]);
    await ok(['set', 'image', 'cloneset/web', 'main=busybox:v4']);
  });

  it('refuses an unknown format, and -o or --dry-run with an in-place restart, before sending anything', async () => {
    const printer =
      'error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml,name,jsonpath\n';
    await expectFailures(plugin, [
      [['set', 'image', 'cloneset/web', 'main=x', '-o', 'wide'], printer],
      [['scale', '--replicas=9', 'cloneset/web', '-o', 'wide'], printer],
      [['rollout', 'pause', 'cloneset/web', '-o', 'wide'], printer],
      [['rollout', 'undo', 'cloneset/web', '-o', 'wide'], printer],
      [
        ['rollout', 'restart', '--in-place', 'cloneset/web', '-o', 'name'],
        "error: --output cannot be used with --in-place\nSee 'kubectl kruise rollout restart --help' for usage.\n",
      ],
    ]);
    const cs = await stored();
    expect([mainOf(cs).image, cs.spec?.replicas, cs.spec?.updateStrategy?.paused]).toEqual([
      'busybox:v4',
      3,
      false,
    ]);
  });
});
