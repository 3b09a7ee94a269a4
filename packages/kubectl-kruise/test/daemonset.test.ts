import { KruiseResources } from '@kruise/api';
import type { KubeObject } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { daemonSet, eventually, getDs, podsOf, runUntil } from '../../manager/test/daemonset/harness.ts';
import { expectFailures, expectSuccess, usePluginEnv } from './plugin-env.ts';

/**
 * `kubectl kruise` on an Advanced DaemonSet (apps.kruise.io DaemonSet, `ads`) over the control
 * plane and kruise-manager (one node, n1); the test plays kubelet.
 */
const { env, plugin } = usePluginEnv(async (env) => {
  await env.client.create(
    KruiseResources.DaemonSet,
    daemonSet('agent', {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { rollingUpdateType: 'InPlaceIfPossible' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: {
          readinessGates: [{ conditionType: 'InPlaceUpdateReady' }],
          containers: [{ name: 'main', image: 'busybox:v1' }],
        },
      },
    }) as KubeObject,
  );
  await runUntil(env.client, 'agent', (pods, ds) => (ds.status?.numberAvailable === 1 ? pods : undefined));
});

const imageOf = async () => (await getDs(env.client, 'agent')).spec!.template.spec!.containers[0]!.image;

describe('kubectl kruise on an Advanced DaemonSet', () => {
  it('names it ads, daemon or daemonsets.apps.kruise.io; plain ds is the built-in kind; it does not scale', async () => {
    for (const name of [
      'ads/agent',
      'daemon/agent',
      'daemonsets.apps.kruise.io/agent',
      'ads.v1alpha1.apps.kruise.io/agent',
    ])
      expect(await expectSuccess(plugin, ['rollout', 'history', name])).toContain(
        'daemonset.apps.kruise.io/agent',
      );
    await expectFailures(plugin, [
      [
        ['rollout', 'history', 'ds/agent'],
        'error: "ds" is the built-in DaemonSet (apps/v1), which kubectl kruise does not handle (use kubectl); an Advanced DaemonSet is "ads" or "daemonsets.apps.kruise.io"\n',
      ],
      [['scale', '--replicas=2', 'ads/agent'], 'error: cannot scale daemonset.apps.kruise.io/agent\n'],
    ]);
  });

  it('set image updates the pod in place; rollout status follows it from pause to its end; undo goes back', async () => {
    const [before] = await podsOf(env.client, 'agent');
    expect(await expectSuccess(plugin, ['rollout', 'pause', 'ads/agent'])).toBe(
      'daemonset.apps.kruise.io/agent paused\n',
    );
    expect(await expectSuccess(plugin, ['set', 'image', 'ads/agent', 'main=busybox:v2'])).toBe(
      'daemonset.apps.kruise.io/agent image updated\n',
    );
    expect(await imageOf()).toBe('busybox:v2');
    await eventually(async () => {
      const ds = await getDs(env.client, 'agent');
      return ds.status?.observedGeneration === ds.metadata?.generation;
    });
    expect(await expectSuccess(plugin, ['rollout', 'status', 'ads/agent', '--watch=false'])).toBe(
      'Waiting for daemon set "agent" rollout to finish: 0 out of 1 new pods have been updated...\n',
    );
    const status = plugin.start(['rollout', 'status', 'ads/agent', '--timeout=90s']);
    await eventually(() => status.out().includes('Waiting for'), 30_000, 50);
    expect(await expectSuccess(plugin, ['rollout', 'resume', 'ads/agent'])).toBe(
      'daemonset.apps.kruise.io/agent resumed\n',
    );
    const inPlaceAt = (image: string) =>
      runUntil(env.client, 'agent', (pods, ds) =>
        ds.status?.updatedNumberScheduled === 1 &&
        ds.status.numberAvailable === 1 &&
        pods.length === 1 &&
        pods[0]!.spec?.containers[0]?.image === image
          ? pods[0]
          : undefined,
      );
    expect((await inPlaceAt('busybox:v2')).metadata?.uid).toBe(before!.metadata?.uid);
    const done = await status.done;
    expect(done.code).toBe(0);
    expect(done.out.trim().split('\n').at(-1)).toBe('daemon set "agent" successfully rolled out');
    expect(await expectSuccess(plugin, ['rollout', 'undo', 'ads/agent'])).toBe(
      'daemonset.apps.kruise.io/agent rolled back\n',
    );
    expect(await imageOf()).toBe('busybox:v1');
    expect((await inPlaceAt('busybox:v1')).metadata?.uid).toBe(before!.metadata?.uid);
  });
});
