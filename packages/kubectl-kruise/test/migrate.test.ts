import { KruiseResources } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { eventually, podsOf, runPod } from '../../manager/test/cloneset/harness.ts';
import { Deployments } from '../src/migrate/migrate.ts';
import { usePluginEnv } from './plugin-env.ts';

/** `migrate CloneSet --from Deployment -n default --src-name web …`. */
const migrateWeb = (...rest: string[]) => [
  'migrate',
  'CloneSet',
  '--from',
  'Deployment',
  '-n',
  'default',
  '--src-name',
  'web',
  ...rest,
];

const deployment = (name: string, replicas: number) => ({
  metadata: { name, namespace: 'default', labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
  },
});

const { env, plugin } = usePluginEnv(async () => {
  await env.client.create(Deployments, deployment('web', 3));
});

describe('kubectl kruise migrate CloneSet --from Deployment', () => {
  it('--create makes a CloneSet from the Deployment with 0 replicas; --copy takes its replicas', async () => {
    const r = await plugin.kruise(migrateWeb('--dst-name', 'web-cs', '--create'));
    expect(r).toMatchObject({
      code: 0,
      err: '',
      out: 'Successfully created from Deployment/web to CloneSet/web-cs\n',
    });
    const cs = await env.client.get(KruiseResources.CloneSet, 'default', 'web-cs');
    expect(cs.spec).toMatchObject({
      replicas: 0,
      selector: { matchLabels: { app: 'web' } },
      updateStrategy: { type: 'ReCreate', maxUnavailable: 1, maxSurge: 1 },
    });
    expect(cs.spec.template.spec.containers[0]).toMatchObject({ name: 'main', image: 'busybox:v1' });
    const copy = await plugin.kruise([
      'migrate',
      'cloneset',
      '--from=deployment',
      '--namespace=default',
      '--src-name=web',
      '--dst-name=web-copy',
      '--create',
      '--copy',
    ]);
    expect(copy.code).toBe(0);
    expect((await env.client.get(KruiseResources.CloneSet, 'default', 'web-copy')).spec.replicas).toBe(3);
    await env.client.delete(KruiseResources.CloneSet, 'default', 'web-copy');
    const again = await plugin.kruise(migrateWeb('--dst-name', 'web-cs', '--create'));
    expect(again).toMatchObject({ code: 1, err: 'error: cloneset default/web-cs already exists\n' });
  });

  it('moves replicas a max-surge at a time: the CloneSet grows, the Deployment shrinks once those pods are available', async () => {
    // kube-controller-manager's Deployment controller does not run here: this loop reports the
    // Deployment's status as it would (observedGeneration), and plays kubelet for the CloneSet's pods
    // (they carry the Deployment's labels: app=web)
    let playing = true;
    const controllers = (async () => {
      while (playing) {
        const d = await env.client.get(Deployments, 'default', 'web').catch(() => undefined);
        if (d && d.status?.observedGeneration !== d.metadata?.generation)
          await env.client
            .mergePatchStatus(Deployments, 'default', 'web', {
              status: { observedGeneration: d.metadata?.generation, replicas: d.spec.replicas },
            })
            .catch(() => undefined);
        for (const p of await podsOf(env.client, 'web'))
          if (!p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'))
            await runPod(env.client, p).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const r = await plugin.kruise(
      migrateWeb('--dst-name', 'web-cs', '--max-surge=2', '--timeout-seconds=40'),
    );
    playing = false;
    await controllers;
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toEqual([
      'Migration progress: Deployment/web scale in 0, CloneSet/web-cs scale out 2',
      'Migration progress: Deployment/web scale in 2, CloneSet/web-cs scale out 2',
      'Migration progress: Deployment/web scale in 2, CloneSet/web-cs scale out 3',
      'Migration progress: Deployment/web scale in 3, CloneSet/web-cs scale out 3',
      'Successfully migrated 3 replicas from Deployment/web to CloneSet/web-cs',
    ]);
    expect((await env.client.get(Deployments, 'default', 'web')).spec.replicas).toBe(0);
    const cs = await eventually(
      async () => {
        const c: KubeObject = await env.client.get(KruiseResources.CloneSet, 'default', 'web-cs');
        return c.status?.availableReplicas === 3 ? c : undefined;
      },
      20_000,
      100,
    );
    expect(cs.spec.replicas).toBe(3);
  }, 90_000);

  it('answers bad arguments with kruise-tools’ messages and exit code 1', async () => {
    const cases: [string[], string][] = [
      [
        ['migrate', 'CloneSet', '--from', 'Deployment', '--src-name', 'web', '--create'],
        'must specify namespace by -n or --namespace',
      ],
      [['migrate', '-n', 'default', '--from', 'Deployment'], 'must specify workload type like CloneSet'],
      [['migrate', 'CloneSet', '-n', 'default', '--src-name', 'web'], 'must specify --from'],
      [
        ['migrate', 'CloneSet', '-n', 'default', '--from', 'Deployment', '--dst-name', 'x'],
        'must specify --src-name',
      ],
      [
        ['migrate', 'CloneSet', '-n', 'default', '--from', 'Deployment', '--src-name', 'web'],
        'must specify --dst-name',
      ],
      [
        ['migrate', 'StatefulSet', '-n', 'default', '--from', 'Deployment', '--src-name', 'web', '--create'],
        'currently only supported CloneSet as dst type',
      ],
      [
        ['migrate', 'CloneSet', '-n', 'default', '--from', 'ReplicaSet', '--src-name', 'web', '--create'],
        'currently only supported Deployment as src type',
      ],
      [
        [
          'migrate',
          'CloneSet',
          '-n',
          'default',
          '--from',
          'Deployment',
          '--src-name',
          'web',
          '--dst-name',
          'web-cs',
          '--replicas=0',
        ],
        'invalid replicas 0',
      ],
    ];
    for (const [args, message] of cases)
      expect(await plugin.kruise(args)).toMatchObject({ code: 1, err: `error: ${message}\n` });
  });
});
