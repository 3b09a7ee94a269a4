import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { FakeKubelet } from './fake-kubelet.ts';
import { eventually, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

const set = (name: string, extra = '', replicas = 3) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ${name}}
spec:
  serviceName: ${name}
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: nginx, image: nginx:1.25}]}
${extra}`;

const CLAIMS = `  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

describe('the StatefulSet controller', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let kubelet: FakeKubelet;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;

  const podsOf = async (app: string): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items;
  const names = (pods: V1Pod[]) => pods.map((p) => p.metadata!.name!).sort();
  const image = (p: V1Pod) => p.spec?.containers[0]?.image;
  const messages = async (name: string) =>
    (
      await core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${name}` })
    ).items
      .sort((a, b) => String(a.metadata?.name).localeCompare(String(b.metadata?.name)))
      .map((e) => `${e.reason}: ${e.message}`);

  beforeAll(async () => {
    cp = await startControlPlane();
    const kc = kubeConfigFor(cp);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
    await createNode(core, 'node-a');
    kubelet = new FakeKubelet(cp, 'default', false);
  });
  afterAll(async () => {
    kubelet?.stop();
    dispose?.();
    await cp?.stop();
  });

  it('creates ordinals in order under OrderedReady, each after its predecessor is Ready, claims first', async () => {
    expect((await kubectl(['apply', '-f', '-'], set('web', CLAIMS))).code).toBe(0);
    await eventually(async () => names(await podsOf('web')).join() === 'web-0');
    // web-1 waits while web-0 is not Ready.
    await new Promise((r) => setTimeout(r, 300));
    expect(names(await podsOf('web'))).toEqual(['web-0']);
    const claim = await core.readNamespacedPersistentVolumeClaim({
      name: 'data-web-0',
      namespace: 'default',
    });
    expect(claim.metadata?.labels).toEqual({ app: 'web' });
    const web0 = (await podsOf('web'))[0]!;
    expect(web0.metadata?.labels).toMatchObject({
      'statefulset.kubernetes.io/pod-name': 'web-0',
      'apps.kubernetes.io/pod-index': '0',
    });
    expect(web0.metadata?.labels?.['controller-revision-hash']).toMatch(
      /^web-[bcdfghjklmnpqrstvwxz2456789]+$/,
    );
    expect(web0.spec?.hostname).toBe('web-0');
    expect(web0.spec?.subdomain).toBe('web');
    expect(web0.spec?.volumes?.[0]).toEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'data-web-0' },
    });

    kubelet.ready('web-0');
    await eventually(async () => names(await podsOf('web')).join() === 'web-0,web-1');
    kubelet.ready('web-1', 'web-2');
    const rollout = await kubectl(['rollout', 'status', 'statefulset/web', '--timeout=30s']);
    expect(rollout.out).toContain('partitioned roll out complete: 3 new pods have been updated...');
    expect(names(await podsOf('web'))).toEqual(['web-0', 'web-1', 'web-2']);
    const sts = await apps.readNamespacedStatefulSet({ name: 'web', namespace: 'default' });
    expect(sts.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      collisionCount: 0,
    });
    expect(sts.status?.currentRevision).toBe(web0.metadata?.labels?.['controller-revision-hash']);
    expect(sts.status?.updateRevision).toBe(sts.status?.currentRevision);
    const events = await messages('web');
    expect(events).toContain(
      'SuccessfulCreate: create Claim data-web-0 Pod web-0 in StatefulSet web success',
    );
    const created = events.filter((e) => e.startsWith('SuccessfulCreate: create Pod'));
    expect(created).toEqual([
      'SuccessfulCreate: create Pod web-0 in StatefulSet web successful',
      'SuccessfulCreate: create Pod web-1 in StatefulSet web successful',
      'SuccessfulCreate: create Pod web-2 in StatefulSet web successful',
    ]);
  });

  it('scales down highest ordinal first, keeps the claims, and reuses them on scale up', async () => {
    const uid = (await core.readNamespacedPersistentVolumeClaim({ name: 'data-web-2', namespace: 'default' }))
      .metadata?.uid;
    expect((await kubectl(['scale', 'sts', 'web', '--replicas=1'])).out).toBe(
      'statefulset.apps/web scaled\n',
    );
    await eventually(async () => names(await podsOf('web')).join() === 'web-0');
    const deleted = (await messages('web')).filter((e) => e.startsWith('SuccessfulDelete'));
    expect(deleted).toEqual([
      'SuccessfulDelete: delete Pod web-2 in StatefulSet web successful',
      'SuccessfulDelete: delete Pod web-1 in StatefulSet web successful',
    ]);
    expect((await kubectl(['get', 'pvc', '-o', 'name'])).out).toContain('persistentvolumeclaim/data-web-2');
    expect((await kubectl(['scale', 'sts', 'web', '--replicas=3'])).code).toBe(0);
    await kubectl(['rollout', 'status', 'sts/web', '--timeout=30s']);
    const web2 = (await podsOf('web')).find((p) => p.metadata?.name === 'web-2');
    expect(web2?.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName).toBe('data-web-2');
    const claim = await core.readNamespacedPersistentVolumeClaim({
      name: 'data-web-2',
      namespace: 'default',
    });
    expect(claim.metadata?.uid).toBe(uid);
  });

  it('creates every ordinal at once under Parallel', async () => {
    expect((await kubectl(['apply', '-f', '-'], set('par', '  podManagementPolicy: Parallel\n'))).code).toBe(
      0,
    );
    const pods = await eventually(async () => {
      const p = await podsOf('par');
      return p.length === 3 ? p : undefined;
    });
    expect(pods.every((p) => p.status?.phase !== 'Running')).toBe(true);
    expect(names(pods)).toEqual(['par-0', 'par-1', 'par-2']);
  });

  it('keeps ordinals below the partition at the old revision; rollout history, undo and restart work', async () => {
    kubelet.auto = true;
    const yaml = set(
      'part',
      '  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 2}}\n  ordinals: {start: 1}\n',
    );
    expect((await kubectl(['apply', '-f', '-'], yaml)).code).toBe(0);
    await kubectl(['rollout', 'status', 'sts/part', '--timeout=30s']);
    expect(names(await podsOf('part'))).toEqual(['part-1', 'part-2', 'part-3']);
    expect((await kubectl(['set', 'image', 'sts/part', 'nginx=nginx:1.26'])).code).toBe(0);
    const status = await kubectl(['rollout', 'status', 'sts/part', '--timeout=30s']);
    expect(status.out).toContain('partitioned roll out complete: 1 new pods have been updated...');
    const pods = await eventually(async () => {
      const p = await podsOf('part');
      return p.length === 3 && p.every((x) => x.status?.phase === 'Running') ? p : undefined;
    });
    const byName = Object.fromEntries(pods.map((p) => [p.metadata!.name!, image(p)]));
    // partition 2 with start 1: ordinals 1 and 2 stay old, ordinal 3 is updated.
    expect(byName).toEqual({ 'part-1': 'nginx:1.25', 'part-2': 'nginx:1.25', 'part-3': 'nginx:1.26' });

    const history = await kubectl(['rollout', 'history', 'sts/part']);
    expect(history.out).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    const second = await kubectl(['rollout', 'history', 'sts/part', '--revision=2']);
    expect(second.out).toContain('Image:\tnginx:1.26');

    expect(
      (
        await kubectl([
          'patch',
          'sts',
          'part',
          '--type=merge',
          '-p',
          '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}',
        ])
      ).code,
    ).toBe(0);
    const undo = await kubectl(['rollout', 'undo', 'sts/part']);
    expect(undo).toMatchObject({ code: 0, out: 'statefulset.apps/part rolled back\n' });
    await eventually(async () => {
      const p = await podsOf('part');
      return p.length === 3 && p.every((x) => image(x) === 'nginx:1.25' && x.status?.phase === 'Running');
    });
    const done = await kubectl(['rollout', 'status', 'sts/part', '--timeout=30s']);
    expect(done.out).toContain('partitioned roll out complete: 3 new pods have been updated...');
    const after = await kubectl(['rollout', 'history', 'sts/part']);
    expect(after.out).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);

    const restart = await kubectl(['rollout', 'restart', 'sts/part']);
    expect(restart.out).toBe('statefulset.apps/part restarted\n');
    await eventually(async () => {
      const p = await podsOf('part');
      return (
        p.length === 3 &&
        p.every(
          (x) =>
            x.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'] && x.status?.phase === 'Running',
        )
      );
    });
    const sts = await apps.readNamespacedStatefulSet({ name: 'part', namespace: 'default' });
    expect(sts.status?.currentRevision).toBe(sts.status?.updateRevision);
    expect(sts.status?.updatedReplicas).toBe(3);
  });

  it('deletes claims with their scaled-down pod and with the set under whenScaled/whenDeleted Delete', async () => {
    kubelet.auto = true;
    const policy = '  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Delete}\n';
    expect((await kubectl(['apply', '-f', '-'], set('db', policy + CLAIMS, 2))).code).toBe(0);
    await kubectl(['rollout', 'status', 'sts/db', '--timeout=30s']);
    const sts = await apps.readNamespacedStatefulSet({ name: 'db', namespace: 'default' });
    const claim0 = await core.readNamespacedPersistentVolumeClaim({
      name: 'data-db-0',
      namespace: 'default',
    });
    expect(claim0.metadata?.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: sts.metadata?.uid },
    ]);
    expect((await kubectl(['scale', 'sts', 'db', '--replicas=1'])).code).toBe(0);
    await eventually(async () => {
      const claims = (await kubectl(['get', 'pvc', '-o', 'name'])).out;
      return !claims.includes('data-db-1') && claims.includes('data-db-0');
    });
    await apps.deleteNamespacedStatefulSet({ name: 'db', namespace: 'default' });
    await eventually(async () => !(await kubectl(['get', 'pvc', '-o', 'name'])).out.includes('data-db-'));
  });

  it('waits minReadySeconds after Ready before the next ordinal and before counting a pod available', async () => {
    kubelet.auto = true;
    expect((await kubectl(['apply', '-f', '-'], set('slow', '  minReadySeconds: 2\n', 2))).code).toBe(0);
    const first = await eventually(async () => {
      const p = (await podsOf('slow')).find((x) => x.status?.phase === 'Running');
      return p;
    });
    const sts = await eventually(async () => {
      const x = await apps.readNamespacedStatefulSet({ name: 'slow', namespace: 'default' });
      return x.status?.readyReplicas === 1 ? x : undefined;
    });
    expect(sts.status?.availableReplicas).toBe(0);
    expect(names(await podsOf('slow'))).toEqual(['slow-0']);
    await kubectl(['rollout', 'status', 'sts/slow', '--timeout=30s']);
    const second = (await podsOf('slow')).find((x) => x.metadata?.name === 'slow-1')!;
    const readyAt = Date.parse(
      first.status!.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime as any,
    );
    // creationTimestamp has whole seconds: slow-1 came no earlier than 2 s after slow-0 was Ready.
    expect(Date.parse(second.metadata!.creationTimestamp as any) + 999).toBeGreaterThanOrEqual(
      readyAt + 2000,
    );
    await eventually(async () => {
      const s = await apps.readNamespacedStatefulSet({ name: 'slow', namespace: 'default' });
      return s.status?.availableReplicas === 2;
    });
  });

  it('rolls maxUnavailable pods at a time when set', async () => {
    const yaml = set(
      'wide',
      '  podManagementPolicy: Parallel\n  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}\n',
      4,
    );
    expect((await kubectl(['apply', '-f', '-'], yaml)).code).toBe(0);
    await kubectl(['rollout', 'status', 'sts/wide', '--timeout=30s']);
    kubelet.auto = false;
    expect((await kubectl(['set', 'image', 'sts/wide', 'nginx=nginx:1.26'])).code).toBe(0);
    // Two deleted at once (highest ordinals), recreated at the new revision, left not Ready.
    const fresh = await eventually(async () => {
      const p = (await podsOf('wide')).filter((x) => image(x) === 'nginx:1.26');
      return p.length === 2 ? p : undefined;
    });
    expect(names(fresh)).toEqual(['wide-2', 'wide-3']);
    await new Promise((r) => setTimeout(r, 300));
    expect((await podsOf('wide')).filter((x) => image(x) === 'nginx:1.26')).toHaveLength(2);
    kubelet.auto = true;
    await kubectl(['rollout', 'status', 'sts/wide', '--timeout=30s']);
    await eventually(async () => (await podsOf('wide')).every((x) => image(x) === 'nginx:1.26'));
  });

  it('adopts its pods again after a delete with --cascade=orphan', async () => {
    const before = await podsOf('web');
    expect(names(before)).toEqual(['web-0', 'web-1', 'web-2']);
    expect((await kubectl(['delete', 'sts', 'web', '--cascade=orphan'])).code).toBe(0);
    await eventually(async () => (await podsOf('web')).every((p) => !p.metadata?.ownerReferences?.length));
    expect((await kubectl(['apply', '-f', '-'], set('web', CLAIMS))).code).toBe(0);
    const sts = await eventually(
      async () =>
        await apps.readNamespacedStatefulSet({ name: 'web', namespace: 'default' }).catch(() => undefined),
    );
    const adopted = await eventually(async () => {
      const p = await podsOf('web');
      return p.every((x) => x.metadata?.ownerReferences?.[0]?.uid === sts.metadata?.uid) ? p : undefined;
    });
    expect(adopted.map((p) => p.metadata?.uid).sort()).toEqual(before.map((p) => p.metadata?.uid).sort());
    await kubectl(['rollout', 'status', 'sts/web', '--timeout=30s']);
  });
});
