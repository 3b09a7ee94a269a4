import { parseFeatureGates } from '@kruise/api';
import type { ControlPlane } from '@kruise/control-plane';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagerApp } from '../src/index.ts';
import { mutatePod, podMutations } from '../src/webhooks/pod/mutating.ts';
import { startEnv } from './env.ts';

let cp: ControlPlane;
let client: KubeClient;
let app: ManagerApp;
beforeAll(async () => {
  ({ cp, client, app } = await startEnv());
  await client.create(Resources.Namespace, {
    metadata: { name: 'system', labels: { 'control-plane': 'x' } },
  });
});
afterAll(async () => {
  await app.stop();
  await cp.stop();
});

const owner = [
  { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: 'uid-1', controller: true },
];
const pod = (
  meta: Record<string, unknown>,
  containers: object[] = [{ name: 'main', image: 'busybox:v1' }],
) => ({
  metadata: { namespace: 'default', ...meta },
  spec: { containers },
});
const create = async (ns: string, obj: object) =>
  (await client.create(Resources.Pod, {
    ...obj,
    metadata: { ...(obj as any).metadata, namespace: ns },
  } as KubeObject)) as Pod;

describe('pod webhook (mpod.kb.io)', () => {
  it('adds the KruisePodReady readiness gate to pods of Kruise workloads only', async () => {
    const owned = await create('default', pod({ name: 'owned', ownerReferences: owner }));
    expect(owned.spec!.readinessGates).toEqual([{ conditionType: 'KruisePodReady' }]);
    const plain = await create('default', pod({ name: 'plain' }));
    expect(plain.spec!.readinessGates).toBeUndefined();
  });

  it('skips namespaces labelled control-plane', async () => {
    const skipped = await create('system', pod({ name: 'owned', ownerReferences: owner }));
    expect(skipped.spec!.readinessGates).toBeUndefined();
  });

  it('names a generateName pod and injects launch barriers for Ordered containers', async () => {
    const created = await create(
      'default',
      pod(
        { generateName: 'ordered-', annotations: { 'apps.kruise.io/container-launch-priority': 'Ordered' } },
        [
          { name: 'a', image: 'busybox:v1' },
          { name: 'b', image: 'busybox:v1' },
        ],
      ),
    );
    const name = created.metadata!.name!;
    expect(name).toMatch(/^ordered-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(created.spec!.containers.map((c) => c.env)).toEqual([
      [
        {
          name: 'KRUISE_CONTAINER_BARRIER',
          valueFrom: { configMapKeyRef: { name: `${name}-barrier`, key: 'p_0' } },
        },
      ],
      [
        {
          name: 'KRUISE_CONTAINER_BARRIER',
          valueFrom: { configMapKeyRef: { name: `${name}-barrier`, key: 'p_-1' } },
        },
      ],
    ]);
  });

  it('uses KRUISE_CONTAINER_PRIORITY when the values differ, and ignores equal ones', async () => {
    const env = (v: string) => [{ name: 'KRUISE_CONTAINER_PRIORITY', value: v }];
    const differing = await create(
      'default',
      pod({ name: 'prio' }, [
        { name: 'a', image: 'busybox:v1', env: env('1') },
        { name: 'b', image: 'busybox:v1' },
      ]),
    );
    expect(differing.spec!.containers.map((c) => c.env?.at(-1)?.valueFrom?.configMapKeyRef?.key)).toEqual([
      'p_1',
      'p_0',
    ]);
    const equal = await create(
      'default',
      pod({ name: 'equal' }, [
        { name: 'a', image: 'busybox:v1', env: env('3') },
        { name: 'b', image: 'busybox:v1', env: env('3') },
      ]),
    );
    expect(equal.spec!.containers.map((c) => c.env)).toEqual([env('3'), env('3')]);
    const err = await create(
      'default',
      pod({ name: 'bad' }, [
        { name: 'a', image: 'busybox:v1', env: env('high') },
        { name: 'b', image: 'busybox:v1' },
      ]),
    ).catch((e) => e);
    expect(err.message).toBe(
      'admission webhook "mpod.kb.io" denied the request: strconv.Atoi: parsing "high": invalid syntax',
    );
  });

  it('with gate KruisePodReadinessGate gates every pod', async () => {
    const handler = mutatePod(parseFeatureGates('KruisePodReadinessGate=true'));
    const res = (await handler({
      uid: 'u',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      operation: 'CREATE',
      namespace: 'default',
      object: pod({ name: 'any' }),
    })) as { patch?: string };
    expect(JSON.parse(Buffer.from(res.patch!, 'base64').toString())).toEqual([
      { op: 'add', path: '/spec/readinessGates', value: [{ conditionType: 'KruisePodReady' }] },
    ]);
  });

  it('runs its steps in upstream’s order: the readiness gate, SidecarSet injection, then launch priority', () => {
    expect(podMutations(parseFeatureGates('')).map((s) => s.name)).toEqual([
      'KruisePodReadinessGate',
      'SidecarSet',
      'ContainerLaunchPriority',
    ]);
  });
});
