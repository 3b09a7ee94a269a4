import { type CloneSet, KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { cloneSet } from '../../manager/test/cloneset/harness.ts';
import { expectFailures, usePluginEnv } from './plugin-env.ts';

const { env, plugin } = usePluginEnv(async () => {
  await env.client.create(KruiseResources.CloneSet, cloneSet('web', { replicas: 1 }));
  await env.client.create(Resources.Namespace, { metadata: { name: 'other' } });
  await env.client.create(KruiseResources.CloneSet, {
    ...cloneSet('api', { replicas: 2 }),
    metadata: { name: 'api', namespace: 'other', labels: { tier: 'back' } },
  });
});

const replicasOf = async (namespace: string, name: string) =>
  (await env.client.get<CloneSet & KubeObject>(KruiseResources.CloneSet, namespace, name)).spec?.replicas;

describe('kubectl kruise scale', () => {
  it('sets spec.replicas through the scale subresource and prints kubectl’s line', async () => {
    const r = await plugin.kruise(['scale', '--replicas=3', 'cloneset/web']);
    expect(r).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web scaled\n', err: '' });
    expect(await replicasOf('default', 'web')).toBe(3);
  });

  it('accepts TYPE NAME, short names, -n and a label selector', async () => {
    const a = await plugin.kruise(['scale', 'clone', 'api', '-n', 'other', '--replicas', '4']);
    expect(a).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/api scaled\n' });
    expect(await replicasOf('other', 'api')).toBe(4);
    const b = await plugin.kruise([
      'scale',
      'clonesets',
      '-l',
      'tier=back',
      '--namespace=other',
      '--replicas=5',
    ]);
    expect(b).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/api scaled\n' });
    expect(await replicasOf('other', 'api')).toBe(5);
  });

  it('checks --current-replicas before scaling and leaves the object alone when it does not hold', async () => {
    const r = await plugin.kruise(['scale', '--current-replicas=7', '--replicas=1', 'cloneset/web']);
    expect(r).toMatchObject({ code: 1, out: '', err: 'error: Expected replicas to be 7, was 3\n' });
    expect(await replicasOf('default', 'web')).toBe(3);
    const ok = await plugin.kruise(['scale', '--current-replicas=3', '--replicas=2', 'cloneset/web']);
    expect(ok).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web scaled\n' });
    expect(await replicasOf('default', 'web')).toBe(2);
  });

  it('changes nothing under --dry-run', async () => {
    const server = await plugin.kruise(['scale', '--replicas=9', '--dry-run=server', 'cloneset/web']);
    expect(server).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web scaled (server dry run)\n' });
    const client = await plugin.kruise(['scale', '--replicas=9', '--dry-run=client', 'cloneset/web']);
    expect(client).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web scaled (dry run)\n' });
    expect(await replicasOf('default', 'web')).toBe(2);
  });

  it('answers bad arguments with kubectl’s messages and exit code 1', async () => {
    const cases: [string[], string][] = [
      [['scale', 'cloneset/web'], 'error: required flag(s) "replicas" not set\n'],
      [
        ['scale', '--replicas=two', 'cloneset/web'],
        `error: invalid argument "two" for "--replicas" flag: strconv.ParseInt: parsing "two": invalid syntax\nSee 'kubectl kruise scale --help' for usage.\n`,
      ],
      [
        ['scale', '--replicas=-1', 'cloneset/web'],
        'error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0\n',
      ],
      [
        ['scale', '--replicas=1', '--frobnicate', 'cloneset/web'],
        "error: unknown flag: --frobnicate\nSee 'kubectl kruise scale --help' for usage.\n",
      ],
      [
        ['scale', '--replicas=1', 'widgets/web'],
        'error: the server doesn\'t have a resource type "widgets"\n',
      ],
      [
        ['scale', '--replicas=1', 'cloneset'],
        'error: resource(s) were provided, but no name was specified\n',
      ],
      [
        ['scale', '--replicas=1', 'cloneset/nope'],
        'Error from server (NotFound): clonesets.apps.kruise.io "nope" not found\n',
      ],
      [
        ['frobnicate'],
        `error: unknown command "frobnicate" for "kubectl-kruise"\nSee 'kubectl kruise --help' for usage.\n`,
      ],
    ];
    await expectFailures(plugin, cases);
    expect(await replicasOf('default', 'web')).toBe(2);
  });
});
