import { type CloneSet, KruiseResources } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kubectlPath } from '../../../test/support/kube-tools.ts';
import { runBinary } from '../../control-plane/test/kubectl-run.ts';
import { cloneSet } from '../../manager/test/cloneset/harness.ts';
import { expectFailures, expectSuccess, usePluginEnv } from './plugin-env.ts';

let file: string;

type Stored = CloneSet & KubeObject;
const stored = (name = 'web') => env.client.get<Stored>(KruiseResources.CloneSet, 'default', name);
const mainOf = (cs: Stored) => cs.spec!.template.spec!.containers[0]!;

const { env, plugin } = usePluginEnv(async () => {
  await env.client.create(KruiseResources.CloneSet, cloneSet('web', { replicas: 1 }));
  await env.client.create(KruiseResources.CloneSet, cloneSet('api', { replicas: 1 }));
  // A manifest as a user keeps it: two documents, the second without a namespace.
  file = plugin.write(
    'workloads.yaml',
    `${stringify(cloneSet('web', { replicas: 1 }))}---\n${stringify({ ...cloneSet('api'), metadata: { name: 'api' } })}`,
  );
});

const ok = (args: string[]) => expectSuccess(plugin, args);

describe('kubectl kruise -f/--filename and --local', () => {
  it('set image -f acts on every object the file names, on the server', async () => {
    expect(await ok(['set', 'image', '-f', file, 'main=busybox:v2'])).toBe(
      'cloneset.apps.kruise.io/web image updated\ncloneset.apps.kruise.io/api image updated\n',
    );
    expect([mainOf(await stored('web')).image, mainOf(await stored('api')).image]).toEqual([
      'busybox:v2',
      'busybox:v2',
    ]);
  });

  it('scale and rollout pause/resume take -f', async () => {
    expect(await ok(['scale', '--replicas=2', '--filename', file])).toBe(
      'cloneset.apps.kruise.io/web scaled\ncloneset.apps.kruise.io/api scaled\n',
    );
    expect([(await stored('web')).spec?.replicas, (await stored('api')).spec?.replicas]).toEqual([2, 2]);
    expect(await ok(['rollout', 'pause', '-f', file, '-o', 'name'])).toBe(
      'cloneset.apps.kruise.io/web\ncloneset.apps.kruise.io/api\n',
    );
    expect((await stored('api')).spec?.updateStrategy?.paused).toBe(true);
    await ok(['rollout', 'resume', `--filename=${file}`]);
    expect((await stored('api')).spec?.updateStrategy?.paused).toBe(false);
  });

  it('rollout history and status take -f', async () => {
    const one = plugin.write('web.yaml', stringify(cloneSet('web')));
    const history = await ok(['rollout', 'history', '-f', one]);
    expect(history.split('\n')[0]).toBe('cloneset.apps.kruise.io/web ');
    const status = await plugin.kruise(['rollout', 'status', '-f', one, '--watch=false']);
    expect(status).toMatchObject({ code: 0, err: '' });
    expect(status.out).toMatch(/^(Waiting for .*|.*successfully rolled out)\n$/);
  });

  it('-f - reads the objects from standard input', async () => {
    const r = await runBinary(
      kubectlPath(),
      ['kruise', 'set', 'env', '-f', '-', 'MODE=stdin'],
      { PATH: `${plugin.dir}/bin:${process.env.PATH}`, HOME: plugin.dir, KUBECONFIG: plugin.kubeconfig },
      JSON.stringify(cloneSet('api')),
    );
    expect(r).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/api env updated\n', err: '' });
    expect(mainOf(await stored('api')).env).toEqual([{ name: 'MODE', value: 'stdin' }]);
    expect(mainOf(await stored('web')).env).toBeUndefined();
  });

  it('set --local -o yaml edits the file’s objects and contacts no server', async () => {
    const unreachable = { KUBECONFIG: plugin.write('dead-kubeconfig', deadKubeconfig) };
    const r = await plugin.kruise(
      ['set', 'resources', '--local', '-f', file, '--limits=cpu=300m', '-o', 'yaml'],
      unreachable,
    );
    expect(r).toMatchObject({ code: 0, err: '' });
    const docs = r.out.split(/^---$/m).map((d) => parse(d) as Stored);
    expect(docs.map((d) => [d.metadata?.name, mainOf(d).resources, mainOf(d).image])).toEqual([
      ['web', { limits: { cpu: '300m' } }, 'busybox:v1'],
      ['api', { limits: { cpu: '300m' } }, 'busybox:v1'],
    ]);
    const local = await plugin.kruise(['set', 'serviceaccount', '--local', '-f', file, 'robot'], unreachable);
    expect(local).toMatchObject({
      code: 0,
      out: 'cloneset.apps.kruise.io/web serviceaccount updated\ncloneset.apps.kruise.io/api serviceaccount updated\n',
    });
    expect(mainOf(await stored('web')).resources?.limits).toBeUndefined();
    expect((await stored('web')).spec!.template.spec!.serviceAccountName).toBeUndefined();
  });

  it('answers bad combinations with kubectl’s messages and exit code 1', async () => {
    const elsewhere = plugin.write(
      'elsewhere.yaml',
      stringify({ ...cloneSet('web'), metadata: { name: 'web', namespace: 'prod' } }),
    );
    const deployment = plugin.write(
      'deploy.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n',
    );
    await expectFailures(plugin, [
      [
        ['set', 'image', '-f', file, 'cloneset/web', 'main=x'],
        'error: resource/name arguments cannot be provided when a path is specified\n',
      ],
      [
        ['scale', '--replicas=1', '-f', file, 'cloneset'],
        'error: when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well\n',
      ],
      [['rollout', 'undo', '-f', 'nope.yaml'], 'error: the path "nope.yaml" does not exist\n'],
      [
        ['set', 'image', '--local', '-f', file, 'main=x', '--dry-run=server'],
        'error: cannot specify --local and --dry-run=server - did you mean --dry-run=client?\n',
      ],
      [
        ['set', 'image', '--local', 'cloneset/web', 'main=x'],
        `error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n`,
      ],
      [
        ['scale', '--replicas=1', '-f', elsewhere, '-n', 'default'],
        `error: the namespace from the provided object "prod" does not match the namespace "default". You must pass '--namespace=prod' to perform this operation.\n`,
      ],
      [
        ['rollout', 'restart', '-f', deployment],
        `error: unable to recognize "${deployment}": no matches for kind "Deployment" in version "apps/v1"\n`,
      ],
    ]);
    expect([(await stored('web')).spec?.replicas, mainOf(await stored('web')).image]).toEqual([
      2,
      'busybox:v2',
    ]);
  });
});

/** A kubeconfig whose server nothing listens on: a --local run must not need it. */
const deadKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`;
