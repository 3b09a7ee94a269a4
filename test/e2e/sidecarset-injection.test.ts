import { KruiseResources } from '@kruise/api';
import { type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sidecarSetRevisionData } from '../../packages/manager/src/workload/sidecarset/revision-data.ts';
import { kubectl } from '../support/kubectl.ts';
import { LOOP, type System, startSystem, until } from './env.ts';

/**
 * SidecarSet injection end to end: kruise-manager's pod webhook injects into pods that really run
 * on the local node (containerd): a CloneSet's pods, sidecars before and after the app container,
 * a shared volume and transferred env seen from inside the app container, a pinned revision, a
 * resourcesPolicy, native-sidecar init containers; never into a `control-plane` namespace.
 */
const NODE = 'sidecarset-node';
let sys: System;
beforeAll(async () => {
  sys = await startSystem(NODE);
}, 120_000);
afterAll(async () => {
  await sys?.client.delete(KruiseResources.CloneSet, 'default', 'injected').catch(() => undefined);
  for (const s of (await sys?.client.list(KruiseResources.SidecarSet).catch(() => undefined))?.items ?? [])
    await sys.client.delete(KruiseResources.SidecarSet, undefined, s.metadata!.name!).catch(() => undefined);
  await sys?.stop();
});

const image = (tag = 'v1') => `${sys.registry}/busybox:${tag}`;
/** A sidecar that writes its transferred env into the shared volume, then loops. */
const WRITER = [
  'sh',
  '-c',
  `echo "$APP_REGION" > /shared/from-sidecar; trap 'exit 0' TERM; while true; do sleep 0.2; done`,
];

async function createSidecarSet(name: string, spec: Record<string, unknown>): Promise<void> {
  await sys.client.create(KruiseResources.SidecarSet, { metadata: { name }, spec } as KubeObject);
  // The webhook reads SidecarSets from its cache: wait until a dry-run pod shows the injection.
  await until(async () => {
    const probe = await sys.client.create(
      Resources.Pod,
      pod(`probe-${name}`, (spec.selector as any).matchLabels),
      { dryRun: true },
    );
    return (
      probe.metadata?.annotations?.['kruise.io/sidecarset-injected-list']?.split(',').includes(name) ||
      undefined
    );
  }, 20_000);
}

function pod(
  name: string,
  labels: Record<string, string>,
  extra: Record<string, unknown> = {},
  ns = 'default',
): KubeObject {
  return {
    metadata: { name, namespace: ns, labels },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'app', image: image(), command: LOOP }],
      ...extra,
    },
  };
}

const running = (ns: string, name: string) =>
  until(async () => {
    const p = await sys.client.get(Resources.Pod, ns, name);
    const all = [...(p.status?.containerStatuses ?? [])];
    return p.status?.phase === 'Running' && all.length > 0 && all.every((s: any) => s.ready) ? p : undefined;
  }, 60_000);

const exec = async (pod: string, container: string, script: string) => {
  const r = await kubectl(sys.kubeconfig, ['exec', pod, '-c', container, '--', 'sh', '-c', script]);
  expect(r.stderr).toBe('');
  return r.stdout.trim();
};

describe('SidecarSet injection (local node, containerd)', () => {
  it('injects into a CloneSet’s pods, before and after the app, with a shared volume and transferred env', async () => {
    await createSidecarSet('logging', {
      selector: { matchLabels: { app: 'injected' } },
      containers: [
        {
          name: 'writer',
          image: image(),
          command: WRITER,
          podInjectPolicy: 'BeforeAppContainer',
          shareVolumePolicy: { type: 'enabled' },
          transferEnv: [{ sourceContainerName: 'app', envName: 'APP_REGION' }],
        },
        { name: 'tail', image: image(), command: LOOP, podInjectPolicy: 'AfterAppContainer' },
      ],
    });
    await sys.client.create(KruiseResources.CloneSet, {
      metadata: { name: 'injected', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'injected' } },
        template: {
          metadata: { labels: { app: 'injected' } },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'app',
                image: image(),
                command: LOOP,
                env: [{ name: 'APP_REGION', value: 'eu-west-7' }],
                volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
              },
            ],
            volumes: [{ name: 'shared', emptyDir: {} }],
          },
        },
      },
    } as KubeObject);
    const pods = await until(async () => {
      const list = (
        await sys.client.list(Resources.Pod, { namespace: 'default', labelSelector: 'app=injected' })
      ).items;
      return list.length === 2 ? list : undefined;
    }, 30_000);
    for (const p of pods) {
      expect(p.spec.containers.map((c: any) => c.name)).toEqual(['writer', 'app', 'tail']);
      expect(p.metadata!.annotations!['kruise.io/sidecarset-injected-list']).toBe('logging');
      const name = p.metadata!.name!;
      await running('default', name);
      // The sidecar wrote the app's env var into the app's volume: both seen from the app container.
      expect(
        await until(
          async () => (await exec(name, 'app', 'cat /shared/from-sidecar 2>/dev/null')) || undefined,
          20_000,
        ),
      ).toBe('eu-west-7');
      expect(await exec(name, 'writer', 'echo $IS_INJECTED')).toBe('true');
    }
  }, 150_000);

  it('never injects into a namespace labelled control-plane', async () => {
    await sys.client.create(Resources.Namespace, {
      metadata: { name: 'infra', labels: { 'control-plane': 'true' } },
    });
    const created = await sys.client.create(Resources.Pod, pod('skipped', { app: 'injected' }, {}, 'infra'), {
      dryRun: true,
    });
    expect(created.spec.containers.map((c: any) => c.name)).toEqual(['app']);
    expect(created.metadata?.annotations?.['kruise.io/sidecarset-injected-list']).toBeUndefined();
  });

  it('injects the revision pinned by injectionStrategy, and sizes a sidecar by resourcesPolicy', async () => {
    const old = {
      metadata: { name: 'pinned' },
      spec: { containers: [{ name: 'proxy', image: image('v1'), command: LOOP }] },
    };
    await sys.client.create(Resources.ControllerRevision, {
      metadata: {
        name: 'pinned-r1',
        namespace: 'kruise-system',
        labels: { 'kruise.io/sidecarset-name': 'pinned', 'apps.kruise.io/sidecarset-custom-version': 'r1' },
      },
      data: JSON.parse(sidecarSetRevisionData(old)),
      revision: 1,
    });
    await createSidecarSet('pinned', {
      selector: { matchLabels: { app: 'pinned' } },
      containers: [
        {
          name: 'proxy',
          image: image('v2'),
          command: LOOP,
          podInjectPolicy: 'AfterAppContainer',
          resourcesPolicy: {
            targetContainersMode: 'sum',
            targetContainersNameRegex: '^app$',
            resourcesExpr: { limits: { cpu: 'cpu*50%', memory: 'memory/2' } },
          },
        },
      ],
      injectionStrategy: { revision: { customVersion: 'r1' } },
    });
    // The pinned revision (r1) has proxy at v1 and no resourcesPolicy; the latest has both.
    await sys.client.create(Resources.Pod, pod('pinned-0', { app: 'pinned' }));
    const p = await running('default', 'pinned-0');
    expect(p.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual([
      `app=${image('v1')}`,
      `proxy=${image('v1')}`,
    ]);
    expect(JSON.parse(p.metadata!.annotations!['kruise.io/sidecarset-hash']!).pinned.controllerRevision).toBe(
      'pinned-r1',
    );

    await sys.client.mergePatch(KruiseResources.SidecarSet, undefined, 'pinned', {
      spec: { injectionStrategy: null },
    });
    const sized = await until(async () => {
      const q = await sys.client.create(
        Resources.Pod,
        pod(
          'sized',
          { app: 'pinned' },
          {
            containers: [
              {
                name: 'app',
                image: image(),
                command: LOOP,
                resources: { limits: { cpu: '400m', memory: '64Mi' } },
              },
            ],
          },
        ),
        { dryRun: true },
      );
      return q.spec.containers[1]?.image === image('v2') ? q : undefined;
    }, 20_000);
    expect(sized.spec.containers[1].resources.limits).toEqual({ cpu: '200m', memory: '32Mi' });
    await sys.client.delete(Resources.Pod, 'default', 'pinned-0', { gracePeriodSeconds: 1 });
  }, 120_000);

  it('injects native-sidecar init containers, started before the app container', async () => {
    await createSidecarSet('native', {
      selector: { matchLabels: { app: 'native' } },
      initContainers: [
        { name: 'b-native', image: image(), command: LOOP, restartPolicy: 'Always' },
        { name: 'a-setup', image: image(), command: ['sh', '-c', 'true'] },
      ],
    });
    await sys.client.create(Resources.Pod, pod('native-0', { app: 'native' }));
    const p = await running('default', 'native-0');
    expect(p.spec.initContainers.map((c: any) => c.name)).toEqual(['a-setup', 'b-native']);
    const native = p.status.initContainerStatuses.find((s: any) => s.name === 'b-native');
    expect(native.started).toBe(true);
    const app = p.status.containerStatuses.find((s: any) => s.name === 'app');
    expect(Date.parse(native.state.running.startedAt)).toBeLessThanOrEqual(
      Date.parse(app.state.running.startedAt),
    );
    await sys.client.delete(Resources.Pod, 'default', 'native-0', { gracePeriodSeconds: 1 });
  }, 90_000);
});
