import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  AdmissionregistrationV1Api,
  AppsV1Api,
  CoreV1Api,
  PolicyV1Api,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, createServingPki } from '../src/index.ts';
import { eventually, expectStatus, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

describe('eviction and PodDisruptionBudgets', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let policy: PolicyV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;
  let hook: Server;
  const reviews: any[] = [];

  /**
   * A ReplicaSet `name` with `replicas` running, Ready pods on `node` (as a kubelet would report
   * them): the pods come first, and the ReplicaSet controller adopts them.
   */
  async function runningSet(name: string, replicas: number, node: string): Promise<void> {
    for (let i = 0; i < replicas; i++) {
      const body: V1Pod = {
        metadata: { name: `${name}-${i}`, labels: { app: name } },
        spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] },
      };
      const pod = await core.createNamespacedPod({ namespace: 'default', body });
      pod.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
      await core.replaceNamespacedPodStatus({ name: `${name}-${i}`, namespace: 'default', body: pod });
    }
    const rs = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: { name },
        spec: {
          replicas,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      },
    });
    await eventually(async () => {
      const pods = (await core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${name}` }))
        .items;
      return (
        pods.length === replicas &&
        pods.every((p) => p.metadata?.ownerReferences?.[0]?.uid === rs.metadata?.uid)
      );
    });
  }

  const budget = (name: string) => policy.readNamespacedPodDisruptionBudget({ name, namespace: 'default' });

  beforeAll(async () => {
    cp = await startControlPlane();
    const kc = kubeConfigFor(cp);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    policy = kc.makeApiClient(PolicyV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
    await createNode(core, 'worker');
    await createNode(core, 'spare');
    // A validating webhook on pods/eviction CREATE that refuses evicting "guarded-*" pods.
    const pki = await createServingPki('hook-ca', ['127.0.0.1']);
    hook = createServer({ cert: pki.serving.cert, key: pki.serving.key }, (req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const request = JSON.parse(text).request;
        reviews.push(request);
        const allowed = !String(request.name).startsWith('guarded');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: {
              uid: request.uid,
              allowed,
              ...(allowed
                ? {}
                : { status: { code: 403, reason: 'Forbidden', message: 'guarded pods stay' } }),
            },
          }),
        );
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    await kc.makeApiClient(AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
      body: {
        metadata: { name: 'eviction-guard' },
        webhooks: [
          {
            name: 'guard.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            clientConfig: {
              url: `https://127.0.0.1:${(hook.address() as AddressInfo).port}/validate`,
              caBundle: Buffer.from(pki.ca.cert).toString('base64'),
            },
            rules: [
              { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'] },
            ],
          },
        ],
      },
    });
  });
  afterAll(async () => {
    dispose?.();
    await cp?.stop();
    hook?.close();
  });

  it("validates budgets with kube-apiserver's messages", async () => {
    const both = await expectStatus(() =>
      policy.createNamespacedPodDisruptionBudget({
        namespace: 'default',
        body: {
          metadata: { name: 'both' },
          spec: { minAvailable: 1, maxUnavailable: 1, selector: {} } as any,
        },
      }),
    );
    expect(both.code).toBe(422);
    expect(both.message).toContain('spec: Invalid value:');
    expect(both.message).toContain('minAvailable and maxUnavailable cannot be both set');
    const percent = await expectStatus(() =>
      policy.createNamespacedPodDisruptionBudget({
        namespace: 'default',
        body: { metadata: { name: 'pct' }, spec: { maxUnavailable: '150%', selector: {} } as any },
      }),
    );
    expect(percent.message).toBe(
      'PodDisruptionBudget.policy "pct" is invalid: spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    );
  });

  it('keeps the budget status and refuses an eviction it forbids with 429', async () => {
    await runningSet('web', 3, 'worker');
    await kubectl(
      ['apply', '-f', '-'],
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec: {minAvailable: 2, selector: {matchLabels: {app: web}}}\n',
    );
    const status = await eventually(async () => {
      const s = (await budget('web')).status;
      return s?.expectedPods === 3 ? s : undefined;
    });
    expect(status).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 2,
      disruptionsAllowed: 1,
      observedGeneration: 1,
    });
    expect(status.conditions).toEqual([
      expect.objectContaining({ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' }),
    ]);
    const table = await kubectl(['get', 'pdb', 'web']);
    expect(table.out).toMatch(/web\s+2\s+N\/A\s+1\s+/);

    await core.createNamespacedPodEviction({
      name: 'web-0',
      namespace: 'default',
      body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-0' } },
    });
    expect(
      (await core.readNamespacedPod({ name: 'web-0', namespace: 'default' })).metadata?.deletionTimestamp,
    ).toBeDefined();
    const after = await budget('web');
    expect(after.status?.disruptionsAllowed).toBe(0);
    const refused = await expectStatus(() =>
      core.createNamespacedPodEviction({
        name: 'web-1',
        namespace: 'default',
        body: { metadata: { name: 'web-1' } },
      }),
    );
    expect(refused).toMatchObject({
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
    });
    expect(refused.details.causes).toEqual([
      {
        reason: 'DisruptionBudget',
        message: 'The disruption budget web needs 2 healthy pods and has 2 currently',
      },
    ]);
    const evictions = reviews.filter((r) => r.subResource === 'eviction');
    expect(evictions[0]).toMatchObject({
      kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      operation: 'CREATE',
      name: 'web-0',
      object: { kind: 'Eviction', metadata: { name: 'web-0', namespace: 'default' } },
    });
  });

  it('calls admission webhooks for pods/eviction and honours their refusal', async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'guarded-1' },
        spec: { nodeName: 'spare', containers: [{ name: 'c', image: 'nginx' }] },
      },
    });
    const denied = await expectStatus(() =>
      core.createNamespacedPodEviction({
        name: 'guarded-1',
        namespace: 'default',
        body: { metadata: { name: 'guarded-1' } },
      }),
    );
    expect(denied).toMatchObject({
      code: 403,
      message: 'admission webhook "guard.example.com" denied the request: guarded pods stay',
    });
    expect(
      (await core.readNamespacedPod({ name: 'guarded-1', namespace: 'default' })).metadata?.deletionTimestamp,
    ).toBeUndefined();
    await core.deleteNamespacedPod({ name: 'guarded-1', namespace: 'default', gracePeriodSeconds: 0 });
  });

  it('refuses kubectl drain while the budget forbids it, and drains once it allows', async () => {
    await runningSet('db', 2, 'spare');
    await kubectl(
      ['apply', '-f', '-'],
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: db}\nspec: {maxUnavailable: 0, selector: {matchLabels: {app: db}}}\n',
    );
    await eventually(async () => (await budget('db')).status?.expectedPods === 2);
    const refused = await kubectl(['drain', 'spare', '--grace-period=0', '--timeout=7s']);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain('node/spare cordoned');
    expect(refused.err).toContain(
      `error when evicting pods/"db-0" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
    );
    expect((await core.readNode({ name: 'spare' })).spec?.unschedulable).toBe(true);
    expect(
      (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=db' })).items,
    ).toHaveLength(2);

    await kubectl(['patch', 'pdb', 'db', '--type=merge', '-p', '{"spec":{"maxUnavailable":2}}']);
    await eventually(async () => (await budget('db')).status?.disruptionsAllowed === 2);
    const drained = await kubectl(['drain', 'spare', '--grace-period=0', '--timeout=20s']);
    expect(drained.err).toBe('');
    expect(drained.out).toContain('pod/db-0 evicted');
    expect(drained.out).toContain('node/spare drained');
    const onSpare = async () =>
      (
        await core.listNamespacedPod({
          namespace: 'default',
          labelSelector: 'app=db',
          fieldSelector: 'spec.nodeName=spare',
        })
      ).items;
    expect(await onSpare()).toHaveLength(0);
    // The ReplicaSet replaces the evicted pods, on the node left schedulable.
    await eventually(async () => {
      const pods = (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=db' })).items;
      return pods.length === 2 && pods.every((p) => p.spec?.nodeName === 'worker');
    });
  }, 60_000);
});
