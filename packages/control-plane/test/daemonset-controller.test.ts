import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { FakeKubelet } from './fake-kubelet.ts';
import { eventually, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

const DS = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: busybox:1.36}]}
`;

describe('the DaemonSet controller', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let kubelet: FakeKubelet;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;

  const pods = async (): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=agent' })).items;
  const live = (list: V1Pod[]) => list.filter((p) => !p.metadata?.deletionTimestamp);
  const nodesOf = (list: V1Pod[]) => list.map((p) => p.spec?.nodeName ?? '').sort();
  const image = (p: V1Pod) => p.spec?.containers[0]?.image;

  beforeAll(async () => {
    cp = await startControlPlane();
    const kc = kubeConfigFor(cp);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
    await createNode(core, 'node-a');
    await createNode(core, 'node-b');
    await createNode(core, 'node-gpu', {
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
    });
    kubelet = new FakeKubelet(cp);
  });
  afterAll(async () => {
    kubelet?.stop();
    dispose?.();
    await cp?.stop();
  });

  it('runs one pod per eligible node, pinned by node affinity and bound by the scheduler; none on a tainted node', async () => {
    expect((await kubectl(['apply', '-f', '-'], DS)).out).toBe('daemonset.apps/agent created\n');
    const rollout = await kubectl(['rollout', 'status', 'daemonset/agent', '--timeout=30s']);
    expect(rollout.out).toContain('daemon set "agent" successfully rolled out');
    const list = await pods();
    expect(nodesOf(list)).toEqual(['node-a', 'node-b']);
    const pod = list.find((p) => p.spec?.nodeName === 'node-a')!;
    expect(pod.metadata?.generateName).toBe('agent-');
    expect(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] }],
    });
    expect(pod.spec?.tolerations?.map((t) => `${t.key}:${t.operator}:${t.effect}`)).toEqual([
      'node.kubernetes.io/not-ready:Exists:NoExecute',
      'node.kubernetes.io/unreachable:Exists:NoExecute',
      'node.kubernetes.io/disk-pressure:Exists:NoSchedule',
      'node.kubernetes.io/memory-pressure:Exists:NoSchedule',
      'node.kubernetes.io/pid-pressure:Exists:NoSchedule',
      'node.kubernetes.io/unschedulable:Exists:NoSchedule',
    ]);
    const ds = await apps.readNamespacedDaemonSet({ name: 'agent', namespace: 'default' });
    expect(ds.status).toMatchObject({
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      numberMisscheduled: 0,
      numberReady: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
      numberUnavailable: 0,
      observedGeneration: 1,
    });
    const hash = pod.metadata?.labels?.['controller-revision-hash'];
    expect((await kubectl(['get', 'controllerrevisions', '-o', 'name'])).out).toBe(
      `controllerrevision.apps/agent-${hash}\n`,
    );
    const events = await kubectl(['get', 'events', '--field-selector=involvedObject.name=agent']);
    expect(events.out).toContain(`SuccessfulCreate   daemonset/agent   Created pod: ${pod.metadata?.name}`);
  });

  it('gives a new node a pod, and a toleration lets one onto the tainted node', async () => {
    await createNode(core, 'node-c');
    await eventually(async () => nodesOf(live(await pods())).join() === 'node-a,node-b,node-c');
    const patch = '{"spec":{"template":{"spec":{"tolerations":[{"key":"dedicated","operator":"Exists"}]}}}}';
    expect((await kubectl(['patch', 'ds', 'agent', '--type=merge', '-p', patch])).code).toBe(0);
    await kubectl(['rollout', 'status', 'ds/agent', '--timeout=30s']);
    await eventually(async () => nodesOf(live(await pods())).join() === 'node-a,node-b,node-c,node-gpu');
  });

  it('rolls an update one node at a time with maxUnavailable 1; history, undo and restart work', async () => {
    let worst = Number.POSITIVE_INFINITY;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const available = live(await pods()).filter((p) => p.status?.phase === 'Running').length;
        worst = Math.min(worst, available);
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    expect((await kubectl(['set', 'image', 'ds/agent', 'agent=busybox:1.37'])).code).toBe(0);
    const rollout = await kubectl(['rollout', 'status', 'ds/agent', '--timeout=30s']);
    sampling = false;
    await sampler;
    expect(rollout.out).toContain('daemon set "agent" successfully rolled out');
    expect(worst).toBe(3);
    const updated = await eventually(async () => {
      const list = live(await pods());
      return list.length === 4 && list.every((p) => image(p) === 'busybox:1.37') ? list : undefined;
    });
    expect(nodesOf(updated)).toEqual(['node-a', 'node-b', 'node-c', 'node-gpu']);

    const history = await kubectl(['rollout', 'history', 'ds/agent']);
    expect(history.out).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n3\s+<none>/);
    const third = await kubectl(['rollout', 'history', 'ds/agent', '--revision=3']);
    expect(third.out).toContain('Image:\tbusybox:1.37');
    const undo = await kubectl(['rollout', 'undo', 'ds/agent']);
    expect(undo).toMatchObject({ code: 0, out: 'daemonset.apps/agent rolled back\n' });
    await kubectl(['rollout', 'status', 'ds/agent', '--timeout=30s']);
    await eventually(async () => {
      const list = live(await pods());
      return list.length === 4 && list.every((p) => image(p) === 'busybox:1.36');
    });
    expect((await kubectl(['rollout', 'history', 'ds/agent'])).out).toMatch(
      /CHANGE-CAUSE\n1\s+<none>\n3\s+<none>\n4\s+<none>\n/,
    );

    expect((await kubectl(['rollout', 'restart', 'ds/agent'])).out).toBe('daemonset.apps/agent restarted\n');
    await kubectl(['rollout', 'status', 'ds/agent', '--timeout=30s']);
    await eventually(async () => {
      const list = live(await pods());
      return (
        list.length === 4 &&
        list.every(
          (p) =>
            p.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'] && p.status?.phase === 'Running',
        )
      );
    });
  });

  it('leaves pods alone under OnDelete until they are deleted', async () => {
    const patch = '{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null}}}';
    expect((await kubectl(['patch', 'ds', 'agent', '--type=merge', '-p', patch])).code).toBe(0);
    expect((await kubectl(['set', 'image', 'ds/agent', 'agent=busybox:1.38'])).code).toBe(0);
    await new Promise((r) => setTimeout(r, 400));
    expect(live(await pods()).filter((p) => image(p) === 'busybox:1.38')).toHaveLength(0);
    const onA = live(await pods()).find((p) => p.spec?.nodeName === 'node-a')!;
    await core.deleteNamespacedPod({ name: onA.metadata!.name!, namespace: 'default' });
    const fresh = await eventually(async () =>
      live(await pods()).find((p) => p.spec?.nodeName === 'node-a' && image(p) === 'busybox:1.38'),
    );
    expect(fresh.metadata?.name).not.toBe(onA.metadata?.name);
    expect(live(await pods()).filter((p) => image(p) === 'busybox:1.38')).toHaveLength(1);
  });

  it('surges a new pod beside the old one on each node with maxSurge 1 and maxUnavailable 0', async () => {
    const strategy =
      '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}';
    expect((await kubectl(['patch', 'ds', 'agent', '--type=merge', '-p', strategy])).code).toBe(0);
    let fewest = Number.POSITIVE_INFINITY;
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const running = live(await pods()).filter((p) => p.status?.phase === 'Running').length;
        fewest = Math.min(fewest, running);
        most = Math.max(most, live(await pods()).length);
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    expect((await kubectl(['set', 'image', 'ds/agent', 'agent=busybox:1.39'])).code).toBe(0);
    await kubectl(['rollout', 'status', 'ds/agent', '--timeout=30s']);
    await eventually(async () => {
      const list = live(await pods());
      return list.length === 4 && list.every((p) => image(p) === 'busybox:1.39');
    });
    sampling = false;
    await sampler;
    // Never fewer than the four nodes running a pod, at most one extra pod at a time.
    expect(fewest).toBe(4);
    expect(most).toBe(5);
  });
});
