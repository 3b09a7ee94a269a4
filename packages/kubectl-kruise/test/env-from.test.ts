import { type CloneSet, KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { cloneSet } from '../../manager/test/cloneset/harness.ts';
import { expectFailures, usePluginEnv } from './plugin-env.ts';

type Stored = CloneSet & KubeObject;
const envOf = async (name: string) =>
  (await env.client.get<Stored>(KruiseResources.CloneSet, 'default', name)).spec!.template.spec!
    .containers[0]!.env;
const b64 = (text: string) => Buffer.from(text).toString('base64');

const { env, plugin } = usePluginEnv(async () => {
  await env.client.create(KruiseResources.CloneSet, cloneSet('web', { replicas: 1 }));
  await env.client.create(KruiseResources.CloneSet, cloneSet('api', { replicas: 1 }));
  await env.client.create(Resources.Secret, {
    metadata: { name: 'creds', namespace: 'default' },
    data: { 'db-user': b64('admin'), 'db.pass': b64('s3cret') },
  });
  await env.client.create(Resources.ConfigMap, {
    metadata: { name: 'settings', namespace: 'default' },
    data: { mode: 'fast', level: '3' },
  });
});

describe('kubectl kruise set env --from, --prefix, --keys, --resolve', () => {
  it('--from=secret/NAME --prefix adds a secretKeyRef per key, named as kubectl names them', async () => {
    const r = await plugin.kruise([
      'set',
      'env',
      'cloneset/web',
      '--from=secret/creds',
      '--prefix=APP_',
      'X=1',
    ]);
    expect(r).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web env updated\n', err: '' });
    expect(await envOf('web')).toEqual([
      { name: 'APP_X', value: '1' },
      { name: 'APP_DB_USER', valueFrom: { secretKeyRef: { name: 'creds', key: 'db-user' } } },
      { name: 'APP_DB_PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'db.pass' } } },
    ]);
  });

  it('--from=configmap/NAME --keys takes only the keys named', async () => {
    const r = await plugin.kruise(['set', 'env', 'cloneset/web', '--from', 'cm/settings', '--keys=mode']);
    expect(r).toMatchObject({ code: 0, out: 'cloneset.apps.kruise.io/web env updated\n', err: '' });
    expect((await envOf('web'))?.slice(3)).toEqual([
      { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } },
    ]);
  });

  it('--list shows the references, --list --resolve their values', async () => {
    const head = '# clonesets web, container main\nAPP_X=1\n';
    expect(await plugin.kruise(['set', 'env', 'cloneset/web', '--list'])).toMatchObject({
      code: 0,
      out: `${head}# APP_DB_USER from secret creds, key db-user\n# APP_DB_PASS from secret creds, key db.pass\n# MODE from configmap settings, key mode\n`,
    });
    expect(await plugin.kruise(['set', 'env', 'cloneset/web', '--list', '--resolve'])).toMatchObject({
      code: 0,
      out: `${head}APP_DB_USER=admin\nAPP_DB_PASS=s3cret\nMODE=fast\n`,
      err: '',
    });
  });

  it('--resolve of a reference that does not resolve lists its source, names the error and exits 1', async () => {
    await env.client.mergePatch(KruiseResources.CloneSet, 'default', 'api', {
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'main',
                image: 'busybox:v1',
                env: [
                  { name: 'A', valueFrom: { secretKeyRef: { name: 'creds', key: 'nope' } } },
                  { name: 'B', valueFrom: { secretKeyRef: { name: 'creds', key: 'nope' } } },
                ],
              },
            ],
          },
        },
      },
    });
    expect(await plugin.kruise(['set', 'env', 'cloneset/api', '--list', '--resolve'])).toEqual({
      code: 1,
      out: '# clonesets api, container main\n# A from secret creds, key nope\n# B from secret creds, key nope\n',
      err: 'error retrieving reference for A, B: key nope not found in secret creds\nerror: failed to retrieve valueFrom references\n',
    });
  });

  it('answers bad combinations with kubectl’s messages and exit code 1, changing nothing', async () => {
    const before = await envOf('web');
    await expectFailures(plugin, [
      [
        ['set', 'env', 'cloneset/web', '--keys=a', 'X=1'],
        'error: when specifying --keys, a configmap or secret must be provided with --from\n',
      ],
      [
        ['set', 'env', 'cloneset/web', '--list', '-o', 'yaml'],
        'error: --list and --output may not be specified together\n',
      ],
      [
        ['set', 'env', 'cloneset/web', '--from=cloneset/api'],
        'error: unsupported resource specified in --from\n',
      ],
      [
        ['set', 'env', 'cloneset/web', '--from=secret/missing'],
        'Error from server (NotFound): secrets "missing" not found\n',
      ],
    ]);
    expect(await envOf('web')).toEqual(before);
  });
});
