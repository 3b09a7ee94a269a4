import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AdmissionregistrationV1Api, AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, createServingPki } from '../src/index.ts';
import { startFakeKubelet } from './fake-kubelet.ts';
import { eventually, kubeConfigFor, startControlPlane } from './helpers.ts';
import { type KubectlResult, kubectlFor } from './kubectl-run.ts';
import { createNode } from './nodes.ts';

const replicaSet = (name: string, replicas: number, labels: Record<string, string> = {}) => `
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
${Object.entries(labels)
  .map(([k, v]) => `        ${k}: "${v}"`)
  .join('\n')}
    spec:
      containers:
      - name: main
        image: nginx:1.25
`;

/** A validating webhook that refuses pods labelled `deny: "yes"` with a message of its own. */
async function startDenyingWebhook(): Promise<{ server: Server; url: string; caBundle: string }> {
  const pki = await createServingPki('deny-ca', ['127.0.0.1']);
  const server = createServer(
    { cert: pki.serving.cert, key: pki.serving.key },
    (req, res: ServerResponse) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const { request } = JSON.parse(text);
        const denied = request.object?.metadata?.labels?.deny === 'yes';
        const response = denied
          ? {
              uid: request.uid,
              allowed: false,
              status: { code: 403, message: 'pods of this set are refused' },
            }
          : { uid: request.uid, allowed: true };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    url: `https://127.0.0.1:${port}/validate`,
    caBundle: Buffer.from(pki.ca.cert).toString('base64'),
  };
}

describe('kube-controller-manager ReplicaSet controller', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let kubectl: (args: string[], input?: string) => Promise<KubectlResult>;
  let dispose: () => void;
  let kubelet: { stop(): void };

  const podsOf = async (app: string): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items.filter(
      (p) => !p.metadata?.deletionTimestamp,
    );

  beforeAll(async () => {
    cp = await startControlPlane();
    const kc = kubeConfigFor(cp);
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
    ({ kubectl, dispose } = kubectlFor(cp));
    for (const n of ['node-a', 'node-b']) await createNode(core, n);
    kubelet = await startFakeKubelet(kc);
  });
  afterAll(async () => {
    kubelet?.stop();
    dispose?.();
    await cp?.stop();
  });

  it('creates the pods of its template, owned by it, and reports them in status and events', async () => {
    expect((await kubectl(['apply', '-f', '-'], replicaSet('front', 3))).code).toBe(0);
    await eventually(
      async () =>
        (await apps.readNamespacedReplicaSet({ namespace: 'default', name: 'front' })).status
          ?.readyReplicas === 3,
    );
    const rs = await apps.readNamespacedReplicaSet({ namespace: 'default', name: 'front' });
    expect(rs.status).toMatchObject({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const pods = await podsOf('front');
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(/^front-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(pod.metadata?.generateName).toBe('front-');
      expect(pod.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'front',
          uid: rs.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    const events = await kubectl([
      'get',
      'events',
      '--field-selector=involvedObject.name=front',
      '-o',
      'jsonpath={range .items[*]}{.reason} {.message}{"\\n"}{end}',
    ]);
    for (const pod of pods)
      expect(events.out).toContain(`SuccessfulCreate Created pod: ${pod.metadata?.name}`);
    const printed = await kubectl(['get', 'rs', 'front']);
    expect(printed.out).toMatch(/front\s+3\s+3\s+3\s+/);
  });

  it('scales down the pods of lowest pod-deletion-cost first', async () => {
    expect((await kubectl(['apply', '-f', '-'], replicaSet('cost', 4))).code).toBe(0);
    await eventually(
      async () =>
        (await apps.readNamespacedReplicaSet({ namespace: 'default', name: 'cost' })).status
          ?.readyReplicas === 4,
    );
    const pods = (await podsOf('cost')).map((p) => p.metadata!.name!);
    const costs = [300, -5, 100, 7];
    for (const [i, name] of pods.entries())
      expect(
        (await kubectl(['annotate', 'pod', name, `controller.kubernetes.io/pod-deletion-cost=${costs[i]}`]))
          .code,
      ).toBe(0);
    expect((await kubectl(['scale', 'rs/cost', '--replicas=2'])).out).toBe('replicaset.apps/cost scaled\n');
    await eventually(async () => (await podsOf('cost')).length === 2);
    expect((await podsOf('cost')).map((p) => p.metadata!.name!).sort()).toEqual([pods[0], pods[2]].sort());
    const events = await kubectl([
      'get',
      'events',
      '--field-selector=involvedObject.name=cost,reason=SuccessfulDelete',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    expect(events.out.split(' Deleted').length).toBe(2);
    expect(events.out).toContain(`Deleted pod: ${pods[1]}`);
    expect(events.out).toContain(`Deleted pod: ${pods[3]}`);
  });

  it('adopts an orphan its selector matches and releases a pod relabelled away', async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'stray', labels: { app: 'adopt' } },
        spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] },
      },
    });
    expect((await kubectl(['apply', '-f', '-'], replicaSet('adopt', 2))).code).toBe(0);
    await eventually(async () => (await podsOf('adopt')).length === 2);
    const stray = await core.readNamespacedPod({ namespace: 'default', name: 'stray' });
    expect(stray.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'ReplicaSet',
      name: 'adopt',
      controller: true,
    });
    expect((await kubectl(['label', 'pod', 'stray', 'app=gone', '--overwrite'])).code).toBe(0);
    await eventually(
      async () =>
        (await podsOf('adopt')).length === 2 &&
        !(await core.readNamespacedPod({ namespace: 'default', name: 'stray' })).metadata?.ownerReferences,
    );
  });

  it('reports ReplicaFailure with the refusal while pods are refused, and clears it once they are created', async () => {
    const hook = await startDenyingWebhook();
    const admission = kubeConfigFor(cp).makeApiClient(AdmissionregistrationV1Api);
    await admission.createValidatingWebhookConfiguration({
      body: {
        metadata: { name: 'deny-pods' },
        webhooks: [
          {
            name: 'deny.pods.test',
            clientConfig: { url: hook.url, caBundle: hook.caBundle },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            failurePolicy: 'Fail',
          },
        ],
      },
    });
    try {
      expect((await kubectl(['apply', '-f', '-'], replicaSet('refused', 10, { deny: 'yes' }))).code).toBe(0);
      await eventually(async () =>
        Boolean(
          (await apps.readNamespacedReplicaSet({ namespace: 'default', name: 'refused' })).status?.conditions
            ?.length,
        ),
      );
      const rs = await apps.readNamespacedReplicaSet({ namespace: 'default', name: 'refused' });
      expect(rs.status?.conditions).toEqual([
        expect.objectContaining({
          type: 'ReplicaFailure',
          status: 'True',
          reason: 'FailedCreate',
          message: expect.stringContaining('pods of this set are refused'),
        }),
      ]);
      const events = await kubectl([
        'get',
        'events',
        '--field-selector=involvedObject.name=refused,reason=FailedCreate',
        '-o',
        'jsonpath={.items[0].message}',
      ]);
      expect(events.out).toMatch(/^Error creating: .*pods of this set are refused/);
      await admission.deleteValidatingWebhookConfiguration({ name: 'deny-pods' });
      await eventually(async () => {
        const s = (await apps.readNamespacedReplicaSet({ namespace: 'default', name: 'refused' })).status;
        return s?.replicas === 10 && !s.conditions;
      }, 20_000);
    } finally {
      hook.server.close();
    }
  });
});
