import { spawn } from 'node:child_process';
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1Pod, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';
import { startFakeKubelet } from './fake-kubelet.ts';
import { eventually, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

interface DeploymentSpec {
  replicas: number;
  image?: string;
  strategy?: string;
  extra?: string;
}

const deployment = (
  name: string,
  { replicas, image = 'nginx:1.25', strategy, extra = '' }: DeploymentSpec,
) => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
${strategy ?? ''}
${extra}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: app
        image: ${image}
`;

/** Every pod of a label, sampled on each change a watch shows: the most alive at once, the fewest available. */
async function samplePods(kc: KubeConfig, app: string) {
  const pods = new Map<string, V1Pod>();
  const sample = { maxAlive: 0, minAvailable: Number.POSITIVE_INFINITY, oldAndNewAlive: false };
  let counting = false;
  const availableNow = () =>
    [...pods.values()].filter(
      (p) =>
        !p.metadata?.deletionTimestamp &&
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    ).length;
  const count = () => {
    const alive = [...pods.values()].filter((p) => !p.metadata?.deletionTimestamp);
    const available = availableNow();
    sample.maxAlive = Math.max(sample.maxAlive, alive.length);
    if (counting) sample.minAvailable = Math.min(sample.minAvailable, available);
    const hashes = new Set(alive.map((p) => p.metadata?.labels?.['pod-template-hash']));
    if (hashes.size > 1) sample.oldAndNewAlive = true;
  };
  const req = await new Watch(kc).watch(
    '/api/v1/namespaces/default/pods',
    { labelSelector: `app=${app}` },
    (type, pod: V1Pod) => {
      if (type === 'DELETED') pods.delete(pod.metadata!.name!);
      else pods.set(pod.metadata!.name!, pod);
      count();
    },
    () => {},
  );
  return {
    sample,
    /** Counts availability from the moment the watch has seen `available` pods available (the first rollout's). */
    startCounting: async (available: number) => {
      await eventually(() => availableNow() >= available);
      counting = true;
      count();
    },
    stop: () => req.abort(),
  };
}

describe('kube-controller-manager Deployment controller, with kubectl rollout', () => {
  let cp: ControlPlane;
  let kc: KubeConfig;
  let apps: AppsV1Api;
  let core: CoreV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let env: NodeJS.ProcessEnv;
  let dispose: () => void;
  let kubelet: { stop(): void };

  const read = (name: string) => apps.readNamespacedDeployment({ namespace: 'default', name });
  const setsOf = async (name: string) =>
    (await apps.listNamespacedReplicaSet({ namespace: 'default', labelSelector: `app=${name}` })).items;
  const apply = async (yaml: string) => expect((await kubectl(['apply', '-f', '-'], yaml)).err).toBe('');
  const rolledOut = async (name: string) => {
    const res = await kubectl(['rollout', 'status', `deployment/${name}`, '--timeout=60s']);
    expect(res.err).toBe('');
    expect(res.out).toContain(`deployment "${name}" successfully rolled out`);
  };

  beforeAll(async () => {
    cp = await startControlPlane();
    kc = kubeConfigFor(cp);
    apps = kc.makeApiClient(AppsV1Api);
    core = kc.makeApiClient(CoreV1Api);
    ({ kubectl, dispose, env } = kubectlFor(cp));
    for (const n of ['node-a', 'node-b', 'node-c']) await createNode(core, n);
    // Ready 50 ms after binding, except pods of the image "stuck:never".
    kubelet = await startFakeKubelet(kc, {
      readyAfterMs: 50,
      ready: (pod) => pod.spec?.containers[0]?.image !== 'stuck:never',
    });
  });
  afterAll(async () => {
    kubelet?.stop();
    dispose?.();
    await cp?.stop();
  });

  it('rolls out a new Deployment: hashed ReplicaSet, annotations, status, conditions and events', async () => {
    await apply(deployment('web', { replicas: 4 }));
    await rolledOut('web');
    const [rs] = await setsOf('web');
    const hash = rs!.metadata!.labels!['pod-template-hash']!;
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rs!.metadata?.name).toBe(`web-${hash}`);
    expect(rs!.spec?.selector?.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs!.metadata?.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '4',
      'deployment.kubernetes.io/max-replicas': '5',
    });
    const d = await read('web');
    expect(d.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 4,
      updatedReplicas: 4,
      readyReplicas: 4,
      availableReplicas: 4,
    });
    expect(d.status?.unavailableReplicas ?? 0).toBe(0);
    const conditions = Object.fromEntries((d.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(conditions.Available).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      message: 'Deployment has minimum availability.',
    });
    expect(conditions.Progressing).toMatchObject({
      status: 'True',
      reason: 'NewReplicaSetAvailable',
      message: `ReplicaSet "web-${hash}" has successfully progressed.`,
    });
    const pods = (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=web' })).items;
    expect(pods.map((p) => p.metadata?.name)).toEqual(
      pods.map(() => expect.stringMatching(new RegExp(`^web-${hash}-[a-z0-9]{5}$`))),
    );
    const events = await kubectl([
      'get',
      'events',
      '--field-selector=involvedObject.kind=Deployment,involvedObject.name=web',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    expect(events.out).toBe(`Scaled up replica set web-${hash} from 0 to 4`);
    expect((await kubectl(['get', 'deploy', 'web'])).out).toMatch(/web\s+4\/4\s+4\s+4\s+/);
  });

  it('paces a rolling update by maxSurge and maxUnavailable, records history, and rolls back with rollout undo', async () => {
    const strategy = '  strategy:\n    rollingUpdate:\n      maxSurge: 2\n      maxUnavailable: 1';
    await apply(deployment('roll', { replicas: 6, strategy }));
    await rolledOut('roll');
    const watch = await samplePods(kc, 'roll');
    try {
      await watch.startCounting(6);
      expect((await kubectl(['set', 'image', 'deployment/roll', 'app=nginx:1.26'])).code).toBe(0);
      // As the Kubernetes docs have it: annotated after the change, the cause goes to the new ReplicaSet only.
      await kubectl(['annotate', 'deployment/roll', 'kubernetes.io/change-cause=image 1.26']);
      await rolledOut('roll');
      expect(watch.sample.maxAlive).toBeLessThanOrEqual(8);
      expect(watch.sample.maxAlive).toBeGreaterThan(6);
      expect(watch.sample.minAvailable).toBeGreaterThanOrEqual(5);
      const history = await kubectl(['rollout', 'history', 'deployment/roll']);
      expect(history.out).toMatch(
        /^deployment.apps\/roll \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+image 1\.26\n/,
      );
      const second = await kubectl(['rollout', 'history', 'deployment/roll', '--revision=2']);
      expect(second.out).toContain('Image:\tnginx:1.26');
      const undo = await kubectl(['rollout', 'undo', 'deployment/roll']);
      expect(undo.err).toBe('');
      expect(undo.out).toBe('deployment.apps/roll rolled back\n');
      await rolledOut('roll');
      expect(watch.sample.maxAlive).toBeLessThanOrEqual(8);
      expect(watch.sample.minAvailable).toBeGreaterThanOrEqual(5);
    } finally {
      watch.stop();
    }
    const d = await read('roll');
    expect(d.spec?.template?.spec?.containers[0]?.image).toBe('nginx:1.25');
    expect(d.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    const sets = await setsOf('roll');
    expect(sets).toHaveLength(2);
    const back = sets.find((s) => s.spec?.template?.spec?.containers[0]?.image === 'nginx:1.25')!;
    expect(back.spec?.replicas).toBe(6);
    expect(back.metadata?.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/revision-history': '1',
    });
    const history = await kubectl(['rollout', 'history', 'deployment/roll']);
    expect(history.out).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+image 1\.26\n3\s+<none>\n/);
  });

  it('replaces every pod at once by Recreate: no old pod alive beside a new one', async () => {
    await apply(deployment('recreate', { replicas: 3, strategy: '  strategy:\n    type: Recreate' }));
    await rolledOut('recreate');
    const watch = await samplePods(kc, 'recreate');
    try {
      expect((await kubectl(['set', 'image', 'deployment/recreate', 'app=nginx:1.26'])).code).toBe(0);
      await rolledOut('recreate');
      expect(watch.sample.oldAndNewAlive).toBe(false);
      expect(watch.sample.maxAlive).toBe(3);
    } finally {
      watch.stop();
    }
    const events = await kubectl([
      'get',
      'events',
      '--field-selector=involvedObject.name=recreate',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    expect(events.out).toMatch(/Scaled down replica set recreate-\w+ from 3 to 0/);
  });

  it('pauses, resumes, restarts and scales with kubectl', async () => {
    await apply(deployment('ops', { replicas: 2 }));
    await rolledOut('ops');
    expect((await kubectl(['rollout', 'pause', 'deployment/ops'])).out).toBe('deployment.apps/ops paused\n');
    await eventually(
      async () =>
        (await read('ops')).status?.conditions?.some((c) => c.reason === 'DeploymentPaused') === true,
    );
    await kubectl(['set', 'image', 'deployment/ops', 'app=nginx:1.26']);
    await new Promise((r) => setTimeout(r, 300));
    expect(await setsOf('ops')).toHaveLength(1);
    expect((await kubectl(['rollout', 'resume', 'deployment/ops'])).out).toBe(
      'deployment.apps/ops resumed\n',
    );
    await rolledOut('ops');
    expect(await setsOf('ops')).toHaveLength(2);
    expect((await kubectl(['rollout', 'restart', 'deployment/ops'])).out).toBe(
      'deployment.apps/ops restarted\n',
    );
    await rolledOut('ops');
    expect(await setsOf('ops')).toHaveLength(3);
    expect((await read('ops')).metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect((await kubectl(['scale', 'deployment/ops', '--replicas=5'])).out).toBe(
      'deployment.apps/ops scaled\n',
    );
    await rolledOut('ops');
    const d = await read('ops');
    expect(d.status).toMatchObject({ replicas: 5, availableReplicas: 5, updatedReplicas: 5 });
    const newest = (await setsOf('ops')).find((s) => (s.spec?.replicas ?? 0) > 0)!;
    expect(newest.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas']).toBe('5');
  });

  it('reports ProgressDeadlineExceeded when the new pods never become ready, and rollout status fails', async () => {
    await apply(deployment('slow', { replicas: 2, extra: '  progressDeadlineSeconds: 2' }));
    await rolledOut('slow');
    await kubectl(['set', 'image', 'deployment/slow', 'app=stuck:never']);
    const res = await kubectl(['rollout', 'status', 'deployment/slow', '--timeout=30s']);
    expect(res.code).not.toBe(0);
    expect(res.err).toContain('error: deployment "slow" exceeded its progress deadline');
    const d = await read('slow');
    const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    expect(progressing?.message).toMatch(/^ReplicaSet "slow-\w+" has timed out progressing\.$/);
    // The old pods stay available: maxUnavailable 25 % of 2 rounds down to 0.
    expect(d.status?.availableReplicas).toBe(2);
  });

  it('streams changes to kubectl get -w', async () => {
    await apply(deployment('watched', { replicas: 1 }));
    await rolledOut('watched');
    const child = spawn(kubectlPath(), ['get', 'deployment', 'watched', '-w', '--no-headers'], { env });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    try {
      await eventually(() => /watched\s+1\/1/.test(out));
      await kubectl(['scale', 'deployment/watched', '--replicas=3']);
      await eventually(() => /watched\s+3\/3\s+3\s+3/.test(out), 20_000);
    } finally {
      child.kill();
    }
  });
});
