import { KruiseResources } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagerApp } from '../../src/index.ts';
import { sidecarSetRevisionData } from '../../src/workload/sidecarset/revision-data.ts';
import { startEnv } from '../env.ts';

/** kruise-manager's pod webhook reading SidecarSets, namespaces and revisions from its caches. */
let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
beforeAll(async () => {
  ({ cp, client, app } = await startEnv());
  await client.create(Resources.Namespace, { metadata: { name: 'meshed', labels: { mesh: 'on' } } });
  await client.create(Resources.Namespace, {
    metadata: { name: 'infra', labels: { 'control-plane': 'x', mesh: 'on' } },
  });
});
afterAll(async () => {
  await app.stop();
  await cp.stop();
});

const pod = (ns: string) =>
  ({
    metadata: { generateName: 'p-', namespace: ns, labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'busybox:v1' }] },
  }) as KubeObject;
/** Creates pods until the webhook's caches show `expected` sidecars (they follow the API by a watch event). */
const sidecarsOf = async (ns: string, expected: string[]) => {
  for (let i = 0; i < 100; i++) {
    const created = await client.create(Resources.Pod, pod(ns), { dryRun: true });
    const got = created.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`);
    if (JSON.stringify(got) === JSON.stringify(expected) || i === 99) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
};

describe('SidecarSet injection through the API', () => {
  it('injects by namespaceSelector from the caches, never into a control-plane namespace, pinned revisions included', async () => {
    await client.create(KruiseResources.SidecarSet, {
      metadata: { name: 'mesh' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        namespaceSelector: { matchLabels: { mesh: 'on' } },
        containers: [{ name: 'proxy', image: 'proxy:v2', podInjectPolicy: 'AfterAppContainer' }],
      },
    } as KubeObject);
    expect(await sidecarsOf('meshed', ['app=busybox:v1', 'proxy=proxy:v2'])).toEqual([
      'app=busybox:v1',
      'proxy=proxy:v2',
    ]);
    expect(
      (await client.create(Resources.Pod, pod('default'), { dryRun: true })).spec.containers,
    ).toHaveLength(1);
    expect((await client.create(Resources.Pod, pod('infra'), { dryRun: true })).spec.containers).toHaveLength(
      1,
    );

    const old = {
      metadata: { name: 'mesh' },
      spec: {
        containers: [{ name: 'proxy', image: 'proxy:v1', podInjectPolicy: 'AfterAppContainer' as const }],
      },
    };
    await client.create(Resources.ControllerRevision, {
      metadata: {
        name: 'mesh-r1',
        namespace: 'kruise-system',
        labels: { 'kruise.io/sidecarset-name': 'mesh' },
      },
      data: JSON.parse(sidecarSetRevisionData(old)),
      revision: 1,
    });
    await client.mergePatch(KruiseResources.SidecarSet, undefined, 'mesh', {
      spec: { injectionStrategy: { revision: { revisionName: 'mesh-r1' } } },
    });
    expect(await sidecarsOf('meshed', ['app=busybox:v1', 'proxy=proxy:v1'])).toEqual([
      'app=busybox:v1',
      'proxy=proxy:v1',
    ]);
    // The validating webhook refuses a pin to a revision that does not exist; one deleted later
    // makes injection fail.
    await client.delete(Resources.ControllerRevision, 'kruise-system', 'mesh-r1');
    const refused = await (async () => {
      for (let i = 0; i < 100; i++) {
        const err = await client.create(Resources.Pod, pod('meshed'), { dryRun: true }).then(
          () => undefined,
          (e: Error) => e,
        );
        if (err) return err.message;
        await new Promise((r) => setTimeout(r, 50));
      }
      return '';
    })();
    expect(refused).toBe(
      'admission webhook "mpod.kb.io" denied the request: controllerrevisions.apps "mesh-r1" not found',
    );
  });
});
