import { mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KruiseResources } from '@kruise/api';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cloneSet } from '../../manager/test/cloneset/harness.ts';
import { mergeKubeconfigs } from '../src/kubeconfig.ts';
import { expectFailures, type PluginRunner, pluginRunner } from './plugin-env.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
let cp: ControlPlane;
let client: KubeClient;
let plugin: PluginRunner;
let admin: any;

/** A kubeconfig file with one context; `cluster` and `user` bodies as given. */
const config = (
  ctx: { name: string; namespace?: string },
  cluster: object,
  user: object,
  current = ctx.name,
) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'shared', cluster }],
    users: [{ name: 'shared', user }],
    contexts: [{ name: ctx.name, context: { cluster: 'shared', user: 'shared', namespace: ctx.namespace } }],
    'current-context': current,
  });

beforeAll(async () => {
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: parse(readFileSync(join(root, 'deploy/crds/apps.kruise.io_clonesets.yaml'), 'utf8')),
  });
  await client.create(Resources.Namespace, { metadata: { name: 'team-b' } });
  const cs = cloneSet('web', { replicas: 1 });
  await client.create(KruiseResources.CloneSet, { ...cs, metadata: { name: 'web', namespace: 'team-b' } });
  plugin = pluginRunner(cp);
  admin = JSON.parse(cp.kubeconfig());
});

afterAll(async () => {
  plugin?.dispose();
  await cp?.stop();
});

const replicas = async () =>
  (await client.get<KubeObject>(KruiseResources.CloneSet, 'team-b', 'web')).spec?.replicas;

describe('kubeconfig handling', () => {
  it('merges KUBECONFIG files as kubectl: the first file wins a name and current-context', async () => {
    // First file: current-context "dead" on a port nothing listens on; it also names cluster and
    // user "shared", so the second file's entries of that name are never used.
    const dead = plugin.write(
      'dead.yaml',
      config({ name: 'dead' }, { server: 'http://127.0.0.1:9' }, { token: 'nobody' }),
    );
    const live = plugin.write(
      'live.yaml',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'kruise', cluster: admin.clusters[0].cluster },
          { name: 'shared', cluster: admin.clusters[0].cluster },
        ],
        users: [{ name: 'admin', user: admin.users[0].user }],
        contexts: [
          { name: 'team-b', context: { cluster: 'kruise', user: 'admin', namespace: 'team-b' } },
          { name: 'dead', context: { cluster: 'kruise', user: 'admin' } },
        ],
        'current-context': 'team-b',
      }),
    );
    const KUBECONFIG = `${dead}:${plugin.dir}/missing.yaml:${live}`;
    const byCurrent = await plugin.kruise(['scale', '--replicas=2', 'cloneset/web'], { KUBECONFIG });
    expect(byCurrent).toMatchObject({
      code: 1,
      err: 'The connection to the server 127.0.0.1:9 was refused - did you specify the right host or port?\n',
    });
    // --context picks the second file's context, whose namespace applies without -n.
    const picked = await plugin.kruise(['scale', '--context=team-b', '--replicas=2', 'cloneset/web'], {
      KUBECONFIG,
    });
    expect(picked).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web scaled\n', err: '' });
    expect(await replicas()).toBe(2);
    expect(mergeKubeconfigs([dead, live]).clusters.map((c) => c.name)).toEqual(['shared', 'kruise']);
  });

  it('reads ~/.kube/config without KUBECONFIG and --kubeconfig over both', async () => {
    const home = plugin.write(
      'home-config',
      config({ name: 'h', namespace: 'team-b' }, admin.clusters[0].cluster, admin.users[0].user),
    );
    mkdirSync(join(plugin.dir, '.kube'), { recursive: true });
    renameSync(home, join(plugin.dir, '.kube', 'config'));
    const fromHome = await plugin.kruise(['scale', '--replicas=3', 'clone', 'web'], { KUBECONFIG: '' });
    expect(fromHome).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web scaled\n' });
    expect(await replicas()).toBe(3);
    const flag = await plugin.kruise(
      ['scale', '--kubeconfig', plugin.kubeconfig, '-n', 'team-b', '--replicas=4', 'cloneset/web'],
      {
        KUBECONFIG: `${plugin.dir}/dead.yaml`,
      },
    );
    expect(flag).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web scaled\n' });
    expect(await replicas()).toBe(4);
  });

  it('answers a missing file, context, cluster or user as kubectl does', async () => {
    const cases: [string[], string][] = [
      [['--kubeconfig=/nonexistent/config'], 'error: stat /nonexistent/config: no such file or directory\n'],
      [['--context=nope'], 'Error in configuration: context was not found for specified context: nope\n'],
      [['--cluster=nope'], 'error: no server found for cluster "nope"\n'],
      [['--user=nope'], 'error: auth info "nope" does not exist\n'],
    ];
    const scaleWith = (flags: string[]) => [
      'scale',
      '--replicas=9',
      'cloneset/web',
      '-n',
      'team-b',
      ...flags,
    ];
    await expectFailures(
      plugin,
      cases.map(([flags, err]) => [scaleWith(flags), err]),
    );
    const broken = plugin.write('broken.yaml', 'clusters: [\n');
    const r = await plugin.kruise(['scale', '--replicas=9', 'cloneset/web', `--kubeconfig=${broken}`]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^error: error loading config file "${broken}": .+\n$`));
    expect(await replicas()).toBe(4);
  });
});
