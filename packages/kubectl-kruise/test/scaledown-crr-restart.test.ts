import { type CloneSet, KruiseResources } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cloneSet, eventually, podsOf } from '../../manager/test/cloneset/harness.ts';
import { usePluginEnv } from './plugin-env.ts';

const { env, plugin } = usePluginEnv(async () => {
  await env.client.create(KruiseResources.CloneSet, cloneSet('web', { replicas: 4 }));
  await eventually(async () => (await podsOf(env.client, 'web')).length === 4, 20_000, 50);
});

const getCloneSet = (name: string) =>
  env.client.get<CloneSet & KubeObject>(KruiseResources.CloneSet, 'default', name);

describe('kubectl kruise scaledown', () => {
  it('deletes the named pods through the CloneSet: podsToDelete, replicas lowered, kruise-tools’ lines', async () => {
    const [a, b] = (await podsOf(env.client, 'web')).map((p) => p.metadata!.name!);
    const r = await plugin.kruise(['scaledown', 'cloneset/web', `--pods=${a},${b}`]);
    expect(r).toMatchObject({
      code: 0,
      err: '',
      out: `# web delete pods [${a} ${b}] successfully\ncloneset.apps.kruise.io/web selective pod deletion\n`,
    });
    const cs = await getCloneSet('web');
    expect(cs.spec?.replicas).toBe(2);
    // the controller deletes exactly those two and prunes the list
    const left = await eventually(
      async () => {
        const names = (await podsOf(env.client, 'web')).map((p) => p.metadata!.name!);
        return names.length === 2 ? names : undefined;
      },
      20_000,
      50,
    );
    expect(left).not.toContain(a);
    expect(left).not.toContain(b);
  });

  it('refuses a pod that is not the CloneSet’s before writing anything', async () => {
    const before = await getCloneSet('web');
    const r = await plugin.kruise(['scaledown', 'cloneset', 'web', '--pods', 'nope']);
    expect(r).toMatchObject({
      code: 1,
      out: '',
      err: 'error: pod nope is not a pod of cloneset.apps.kruise.io/web\n',
    });
    expect((await getCloneSet('web')).spec).toEqual(before.spec); // nothing written (status may move on)
  });

  it('answers bad arguments with kubectl-style errors and exit code 1', async () => {
    expect(await plugin.kruise(['scaledown', 'cloneset/web'])).toMatchObject({
      code: 1,
      err: 'error: must specify one pod name\n',
    });
    expect(await plugin.kruise(['scaledown', 'cloneset/missing', '--pods=a'])).toMatchObject({
      code: 1,
      err: 'Error from server (NotFound): clonesets.apps.kruise.io "missing" not found\n',
    });
    expect(await plugin.kruise(['scaledown', 'widgets/web', '--pods=a'])).toMatchObject({
      code: 1,
      err: 'error: the server doesn\'t have a resource type "widgets"\n',
    });
  });
});

describe('kubectl kruise create ContainerRecreateRequest', () => {
  it('prints the request it would send (--dry-run=client -o yaml): every container, kruise-tools’ defaults', async () => {
    const pod = (await podsOf(env.client, 'web'))[0]!.metadata!.name!;
    const r = await plugin.kruise([
      'create',
      'ContainerRecreateRequest',
      'r1',
      `--pod=${pod}`,
      '--dry-run=client',
      '-o',
      'yaml',
    ]);
    expect(r.code).toBe(0);
    expect(parse(r.out)).toEqual({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'ContainerRecreateRequest',
      metadata: { name: 'r1', namespace: 'default' },
      spec: {
        podName: pod,
        containers: [{ name: 'main' }],
        strategy: {
          failurePolicy: 'Fail',
          orderedRecreate: false,
          unreadyGracePeriodSeconds: 3,
          minStartedSeconds: 3,
        },
        activeDeadlineSeconds: 300,
        ttlSecondsAfterFinished: 1800,
      },
    });
    const named = await plugin.kruise([
      'create',
      'ContainerRecreateRequest',
      'r1',
      `--pod=${pod}`,
      '--dry-run=client',
      '-u',
      '7',
    ]);
    expect(named).toMatchObject({
      code: 0,
      out: 'containerrecreaterequest.apps.kruise.io/r1 created (dry run)\n',
    });
    const none = await env.client.list(KruiseResources.ContainerRecreateRequest, { namespace: 'default' });
    expect(none.items).toEqual([]);
  });

  it('checks its name, the pod and the containers first', async () => {
    const pod = (await podsOf(env.client, 'web'))[0]!.metadata!.name!;
    expect(await plugin.kruise(['create', 'ContainerRecreateRequest', '--pod=x'])).toMatchObject({
      code: 1,
      err: "error: NAME is required\nSee 'kubectl kruise create ContainerRecreateRequest --help' for usage.\n",
    });
    expect(await plugin.kruise(['create', 'ContainerRecreateRequest', 'r2'])).toMatchObject({
      code: 1,
      err: 'error: required flag(s) "pod" not set\n',
    });
    expect(await plugin.kruise(['create', 'ContainerRecreateRequest', 'r2', '--pod=ghost'])).toMatchObject({
      code: 1,
      err: 'error: pod ghost in namespace default not exist\n',
    });
    expect(
      await plugin.kruise([
        'create',
        'ContainerRecreateRequest',
        'r2',
        `--pod=${pod}`,
        '--containers=main,other',
      ]),
    ).toMatchObject({ code: 1, err: 'error: has container not exist\n' });
    expect(
      await plugin.kruise(['create', 'ContainerRecreateRequest', 'r2', `--pod=${pod}`, '-o', 'wide']),
    ).toMatchObject({
      code: 1,
      err: 'error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml,name,jsonpath\n',
    });
  });
});

describe('kubectl kruise rollout restart --in-place (arguments; the restart itself runs on a real node in test/e2e)', () => {
  it('refuses a workload whose maxUnavailable resolves to 0, and bad flags, before touching anything', async () => {
    await env.client.create(
      KruiseResources.CloneSet,
      cloneSet('strict', { replicas: 2, updateStrategy: { maxUnavailable: 0, maxSurge: 1 } }),
    );
    const strict = await plugin.kruise(['rollout', 'restart', '--in-place', 'cloneset/strict']);
    expect(strict).toMatchObject({
      code: 1,
      out: '',
      err: 'error: cloneset.apps.kruise.io/strict allows no unavailable pod (maxUnavailable resolves to 0): an in-place restart cannot keep it; use "rollout restart" to recreate pods with maxSurge\n',
    });
    expect((await getCloneSet('strict')).metadata?.annotations).toBeUndefined();
    expect(await plugin.kruise(['rollout', 'restart', 'cloneset/web', '--reason=x'])).toMatchObject({
      code: 1,
      err: "error: --reason can only be used with --in-place\nSee 'kubectl kruise rollout restart --help' for usage.\n",
    });
    expect(await plugin.kruise(['rollout', 'restart', '--in-place'])).toMatchObject({
      code: 1,
      err: 'error: required resource not specified\n',
    });
    expect(
      await plugin.kruise(['rollout', 'restart', '--in-place', 'cloneset/web', '--timeout=soon']),
    ).toMatchObject({
      code: 1,
      err: `error: invalid argument "soon" for "--timeout" flag: time: invalid duration "soon"\nSee 'kubectl kruise rollout restart --help' for usage.\n`,
    });
  });
});
