import { AppsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../src/index.ts';
import { eventually, expectStatus, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';

const STS = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.25}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

describe('apps/v1 StatefulSet, ReplicaSet and ControllerRevision', () => {
  let cp: ControlPlane;
  let apps: AppsV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;

  beforeAll(async () => {
    // The API server's own storage and status rules: no StatefulSet controller writes status here.
    cp = await startControlPlane({ workloadSets: false });
    apps = kubeConfigFor(cp).makeApiClient(AppsV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
  });
  afterAll(async () => {
    dispose?.();
    await cp?.stop();
  });

  it('serves the kinds in discovery with their short names and subresources', async () => {
    const res = await kubectl(['api-resources', '--api-group=apps']);
    expect(res.out).toMatch(/controllerrevisions\s+apps\/v1\s+true\s+ControllerRevision/);
    expect(res.out).toMatch(/statefulsets\s+sts\s+apps\/v1\s+true\s+StatefulSet/);
    expect(res.out).toMatch(/replicasets\s+rs\s+apps\/v1\s+true\s+ReplicaSet/);
  });

  it('stores a StatefulSet with kube-apiserver defaults, scales it and prints it', async () => {
    expect(await kubectl(['apply', '-f', '-'], STS)).toMatchObject({
      code: 0,
      out: 'statefulset.apps/web created\n',
    });
    const sts = await apps.readNamespacedStatefulSet({ name: 'web', namespace: 'default' });
    expect(sts.metadata?.generation).toBe(1);
    expect(sts.spec).toMatchObject({
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      revisionHistoryLimit: 10,
    });
    expect(sts.spec?.template.spec?.restartPolicy).toBe('Always');
    expect(sts.spec?.template.spec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
    expect(sts.spec?.volumeClaimTemplates?.[0]?.spec?.volumeMode).toBe('Filesystem');
    expect(sts.status?.replicas).toBe(0);

    expect((await kubectl(['scale', 'statefulset/web', '--replicas=3'])).code).toBe(0);
    const scale = await apps.readNamespacedStatefulSetScale({ name: 'web', namespace: 'default' });
    expect(scale.spec?.replicas).toBe(3);
    expect(scale.status?.selector).toBe('app=web');

    const status = await kubectl([
      'patch',
      'sts',
      'web',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"replicas":3,"readyReplicas":2,"availableReplicas":2}}',
    ]);
    expect(status.code).toBe(0);
    const tooMany = await kubectl([
      'patch',
      'sts',
      'web',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"readyReplicas":4}}',
    ]);
    expect(tooMany.err).toContain(
      'status.readyReplicas: Invalid value: 4: cannot be greater than status.replicas',
    );
    const table = await kubectl(['get', 'sts', 'web', '-o', 'wide']);
    expect(table.out).toMatch(/NAME\s+READY\s+AGE\s+CONTAINERS\s+IMAGES/);
    expect(table.out).toMatch(/web\s+2\/3\s+\S+\s+nginx\s+nginx:1\.25/);
  });

  it("rejects a StatefulSet with kube-apiserver's messages", async () => {
    const bad = STS.replace('{labels: {app: web}}', '{labels: {app: other}}').replace(
      'name: web}',
      'name: bad}',
    );
    const res = await kubectl(['apply', '-f', '-'], bad);
    expect(res.code).not.toBe(0);
    expect(res.err).toContain(
      'The StatefulSet "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    );
    const forbidden = await kubectl([
      'patch',
      'sts',
      'web',
      '--type=merge',
      '-p',
      '{"spec":{"serviceName":"other"}}',
    ]);
    expect(forbidden.err).toContain(
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
    const policy = await expectStatus(() =>
      apps.createNamespacedStatefulSet({
        namespace: 'default',
        body: {
          metadata: { name: 'pol' },
          spec: {
            serviceName: 'x',
            podManagementPolicy: 'Sometimes',
            selector: { matchLabels: { a: 'b' } },
            template: {
              metadata: { labels: { a: 'b' } },
              spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] },
            },
          },
        },
      }),
    );
    expect(policy.code).toBe(422);
    expect(policy.message).toBe(
      `StatefulSet.apps "pol" is invalid: [spec.podManagementPolicy: Invalid value: "Sometimes": must be 'OrderedReady' or 'Parallel', spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"]`,
    );
  });

  it('stores a ReplicaSet, keeps its selector immutable and lists it by status.replicas', async () => {
    const rs = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: { name: 'front' },
        spec: {
          selector: { matchLabels: { app: 'front' } },
          template: {
            metadata: { labels: { app: 'front' } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      },
    });
    expect(rs.spec?.replicas).toBe(1);
    expect(rs.spec?.template?.spec?.containers[0]?.imagePullPolicy).toBe('Always');
    const res = await kubectl([
      'patch',
      'rs',
      'front',
      '--type=merge',
      '-p',
      '{"spec":{"selector":{"matchLabels":{"app":"x"}}}}',
    ]);
    expect(res.err).toContain(
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
    const empty = await expectStatus(() =>
      apps.createNamespacedReplicaSet({
        namespace: 'default',
        body: {
          metadata: { name: 'empty' },
          spec: { selector: {}, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
        },
      }),
    );
    expect(empty.message).toContain(
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    );
    // The ReplicaSet controller creates its one pod and counts it in status.replicas.
    await eventually(async () => {
      const listed = await kubectl(['get', 'rs', '--field-selector=status.replicas=1', '-o', 'name']);
      return listed.out === 'replicaset.apps/front\n';
    });
    const none = await kubectl(['get', 'rs', '--field-selector=status.replicas=0', '-o', 'name']);
    expect(none.out).toBe('');
  });

  it('stores a ControllerRevision, keeps its data immutable and requires data', async () => {
    const sts = await apps.readNamespacedStatefulSet({ name: 'web', namespace: 'default' });
    await apps.createNamespacedControllerRevision({
      namespace: 'default',
      body: {
        metadata: {
          name: 'web-5d4f8b7c9',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              name: 'web',
              uid: sts.metadata!.uid!,
              controller: true,
            },
          ],
        },
        data: { spec: { template: { $patch: 'replace' } } },
        revision: 1,
      },
    });
    const table = await kubectl(['get', 'controllerrevisions']);
    expect(table.out).toMatch(/web-5d4f8b7c9\s+statefulset\.apps\/web\s+1\s+/);
    const renumbered = await kubectl([
      'patch',
      'controllerrevision',
      'web-5d4f8b7c9',
      '--type=merge',
      '-p',
      '{"revision":3}',
    ]);
    expect(renumbered.code).toBe(0);
    const changed = await kubectl([
      'patch',
      'controllerrevision',
      'web-5d4f8b7c9',
      '--type=merge',
      '-p',
      '{"data":{"x":1}}',
    ]);
    expect(changed.err).toMatch(/data: Invalid value: .*: field is immutable/);
    const missing = await expectStatus(() =>
      apps.createNamespacedControllerRevision({
        namespace: 'default',
        body: { metadata: { name: 'r' }, revision: -1 } as any,
      }),
    );
    expect(missing.message).toBe(
      'ControllerRevision.apps "r" is invalid: [data: Required value: data is mandatory, revision: Invalid value: -1: must be greater than or equal to 0]',
    );
    // Owned by the StatefulSet: collected with it.
    await apps.deleteNamespacedStatefulSet({ name: 'web', namespace: 'default' });
    await cp.settled();
    const after = await kubectl(['get', 'controllerrevisions', '-o', 'name']);
    expect(after.out).toBe('');
  });
});
