import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, Resources } from '@kruise/runtime';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestNodes, type TestNodes } from '../support/local-nodes.ts';
import { eventually } from '../support/poll.ts';

const registry = inject('registry');
let cp: ControlPlane;
let client: KubeClient;
let cluster: TestNodes;

beforeAll(async () => {
  cp = await ControlPlane.start();
  client = KubeClient.fromString(cp.kubeconfig());
  cluster = await startTestNodes(client, {
    count: 3,
    base: 'multi',
    criStackDir: inject('criStackDir'),
    registry,
  });
}, 180_000);
afterAll(async () => {
  await cluster?.stop();
  await cp?.stop();
});

const loop = ['sh', '-c', "trap 'exit 0' TERM; cat /etc/image-version; while true; do sleep 0.2; done"];

describe('several local nodes', () => {
  it('registers three Ready Nodes with distinct names and zones', async () => {
    const nodes = (await client.list(Resources.Node)).items;
    expect(
      nodes.map((n) => [n.metadata?.name, n.metadata?.labels?.['topology.kubernetes.io/zone']]).sort(),
    ).toEqual([
      ['multi', 'zone-a'],
      ['multi-2', 'zone-b'],
      ['multi-3', 'zone-c'],
    ]);
    for (const n of nodes)
      expect(n.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
  });

  it('runs a pod pinned to each node on that node’s own containerd; images pulled on one node are not on the others', async () => {
    const images = [`${registry}/busybox:v1`, `${registry}/busybox:v2`, `${registry}/busybox:v1`];
    for (const [i, n] of cluster.nodes.entries())
      await client.create(Resources.Pod, {
        metadata: { name: `on-${n.name}`, namespace: 'default' },
        spec: {
          nodeName: n.name,
          terminationGracePeriodSeconds: 2,
          containers: [{ name: 'app', image: images[i], command: loop }],
        },
      });
    for (const n of cluster.nodes) {
      const pod = await eventually(
        async () => {
          const p = await client.get(Resources.Pod, 'default', `on-${n.name}`);
          return p.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
        },
        60_000,
        100,
      );
      // The container runs in this node's containerd, and only there.
      const id = pod.status.containerStatuses[0].containerID.replace('containerd://', '');
      for (const other of cluster.nodes) {
        const { containers } = await other.cri.listContainers({
          labelSelector: { 'io.kubernetes.pod.uid': pod.metadata!.uid! },
        });
        expect(containers.map((c) => c.id)).toEqual(other === n ? [id] : []);
      }
    }
    const has = async (i: number, image: string) =>
      (await cluster.nodes[i]!.cri.imageStatus(image)).image !== null;
    expect([await has(0, images[1]!), await has(1, images[1]!), await has(2, images[1]!)]).toEqual([
      false,
      true,
      false,
    ]);
    expect(await has(0, images[0]!)).toBe(true);
    expect(await has(1, images[0]!)).toBe(false);
    for (const n of cluster.nodes)
      await client.delete(Resources.Pod, 'default', `on-${n.name}`, { gracePeriodSeconds: 1 });
    await eventually(
      async () => (await client.list(Resources.Pod, { namespace: 'default' })).items.length === 0,
      30_000,
      100,
    );
  }, 120_000);
});
