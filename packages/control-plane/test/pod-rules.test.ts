import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL_NEWEST, kubectlPath } from '../../../test/support/kube-tools.ts';
import type { ControlPlane } from '../src/index.ts';
import { expectStatus, kubeConfigFor, rawRequest, runKubectl, startControlPlane } from './helpers.ts';

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const FORBIDDEN_PREFIX =
  'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';

describe('pod update rules as kube-apiserver', () => {
  let cp: ControlPlane;
  let core: CoreV1Api;
  let dir: string;
  const kubectl = (args: string[], input?: string) =>
    runKubectl(kubectlPath(KUBECTL_NEWEST), join(dir, 'kubeconfig'), args, input);

  beforeAll(async () => {
    cp = await startControlPlane();
    core = kubeConfigFor(cp).makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'pod-rules-'));
    cp.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const pod = (name: string, extra: Partial<V1Pod['spec']> = {}, resources?: object): V1Pod => ({
    metadata: { name, labels: { app: name } },
    spec: {
      containers: [{ name: 'main', image: 'nginx:1.25', ...(resources ? { resources } : {}) }],
      ...extra,
    },
  });

  it('lets an update change images, lower activeDeadlineSeconds, add tolerations and remove gates', async () => {
    await core.createNamespacedPod({
      namespace: 'default',
      body: pod('p1', {
        activeDeadlineSeconds: 100,
        tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }],
        schedulingGates: [{ name: 'example.com/gate' }],
      }),
    });
    const updated = await core.patchNamespacedPod({
      namespace: 'default',
      name: 'p1',
      body: [
        { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.26' },
        { op: 'replace', path: '/spec/activeDeadlineSeconds', value: 50 },
        { op: 'add', path: '/spec/tolerations/-', value: { key: 'b', operator: 'Exists' } },
        { op: 'remove', path: '/spec/schedulingGates' },
        { op: 'add', path: '/metadata/labels/extra', value: 'yes' },
      ],
    });
    expect(updated.spec?.containers[0]?.image).toBe('nginx:1.26');
    expect(updated.spec?.activeDeadlineSeconds).toBe(50);
    expect(updated.spec?.tolerations?.map((t) => t.key)).toEqual(['a', 'b']);
    expect(updated.spec?.schedulingGates).toBeUndefined();
    expect(updated.metadata?.labels?.extra).toBe('yes');
  });

  it('refuses other spec changes with kube-apiserver message', async () => {
    const status = await expectStatus(() =>
      core.patchNamespacedPod({
        namespace: 'default',
        name: 'p1',
        body: [{ op: 'add', path: '/spec/containers/0/command', value: ['sleep', '1'] }],
      }),
    );
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message.startsWith(`Pod "p1" is invalid: ${FORBIDDEN_PREFIX}`)).toBe(true);
    expect(status.message).toContain('command');
    expect(status.details.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
    const stored = await core.readNamespacedPod({ namespace: 'default', name: 'p1' });
    expect(stored.spec?.containers[0]?.command).toBeUndefined();
  });

  it('refuses added containers, a raised deadline, changed tolerations and new gates', async () => {
    const patch = (body: object[]) =>
      expectStatus(() => core.patchNamespacedPod({ namespace: 'default', name: 'p1', body }));
    expect(
      (await patch([{ op: 'add', path: '/spec/containers/-', value: { name: 'two', image: 'busybox' } }]))
        .message,
    ).toBe('Pod "p1" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers');
    expect((await patch([{ op: 'replace', path: '/spec/activeDeadlineSeconds', value: 60 }])).message).toBe(
      'Pod "p1" is invalid: spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value',
    );
    expect((await patch([{ op: 'remove', path: '/spec/tolerations/0' }])).message).toBe(
      'Pod "p1" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    );
    expect(
      (await patch([{ op: 'add', path: '/spec/schedulingGates', value: [{ name: 'late' }] }])).message,
    ).toBe(
      `Pod "p1" is invalid: spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'late'`,
    );
  });

  it('kubectl apply of a changed port is refused as on a real cluster', async () => {
    const yaml = (port: number) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: k1, namespace: default}\nspec:\n  containers:\n  - name: web\n    image: nginx:1.25\n    ports: [{containerPort: ${port}}]\n`;
    expect((await kubectl(['apply', '-f', '-'], yaml(80))).code).toBe(0);
    const changed = await kubectl(['apply', '-f', '-'], yaml(8080));
    expect(changed.code).not.toBe(0);
    expect(changed.err).toContain(`The Pod "k1" is invalid: ${FORBIDDEN_PREFIX}`);
    expect((await kubectl(['set', 'image', 'pod/k1', 'web=nginx:1.26'])).code).toBe(0);
    expect((await kubectl(['get', 'pod', 'k1', '-o', 'jsonpath={.spec.containers[0].image}'])).out).toBe(
      'nginx:1.26',
    );
  });

  it('keeps label and annotation changes written through pods/status, but not owner references', async () => {
    const current = await core.readNamespacedPod({ namespace: 'default', name: 'p1' });
    const written = await core.replaceNamespacedPodStatus({
      namespace: 'default',
      name: 'p1',
      body: {
        ...current,
        metadata: {
          ...current.metadata,
          labels: { ...current.metadata?.labels, written: 'by-status' },
          annotations: { 'apps.kruise.io/runtime-containers-meta': '{"containers":[]}' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u-1' }],
        },
        spec: { ...current.spec!, containers: [{ name: 'main', image: 'changed-through-status' }] },
        status: { ...current.status, phase: 'Running' },
      },
    });
    expect(written.status?.phase).toBe('Running');
    expect(written.metadata?.labels?.written).toBe('by-status');
    expect(written.metadata?.annotations?.['apps.kruise.io/runtime-containers-meta']).toBe(
      '{"containers":[]}',
    );
    expect(written.metadata?.ownerReferences).toBeUndefined();
    expect(written.spec?.containers[0]?.image).toBe('nginx:1.26');
    const patched = await core.patchNamespacedPodStatus(
      {
        namespace: 'default',
        name: 'p1',
        body: { metadata: { annotations: { note: 'merged' } }, status: { message: 'hi' } },
      },
      MERGE,
    );
    expect(patched.metadata?.annotations?.note).toBe('merged');
    expect(patched.status?.message).toBe('hi');
  });

  it('keeps a custom resource status write to status only', async () => {
    // Deployments keep their stored labels on a status write (their status strategy resets them).
    const deploymentPath = '/apis/apps/v1/namespaces/default/deployments';
    const created = await rawRequest(cp, 'POST', deploymentPath, {
      body: JSON.stringify({
        metadata: { name: 'd1', labels: { a: '1' } },
        spec: {
          selector: { matchLabels: { a: '1' } },
          template: {
            metadata: { labels: { a: '1' } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      }),
    });
    expect(created.code).toBe(201);
    const written = await rawRequest(cp, 'PATCH', `${deploymentPath}/d1/status`, {
      body: JSON.stringify({
        metadata: { labels: { a: '2' }, annotations: { k: 'v' } },
        status: { replicas: 3 },
      }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(written.code).toBe(200);
    expect(written.body.metadata.labels).toEqual({ a: '1' });
    // (The Deployment controller adds its revision annotation meanwhile.)
    expect(written.body.metadata.annotations).toMatchObject({ k: 'v' });
    expect(written.body.status.replicas).toBe(3);
  });

  describe('pods/resize', () => {
    const resize = (name: string, body: object) =>
      core.patchNamespacedPodResize({ namespace: 'default', name, body }, MERGE);

    it('is listed in discovery and changes only cpu and memory', async () => {
      const resources = await rawRequest(cp, 'GET', '/api/v1');
      expect(resources.body.resources).toContainEqual(
        expect.objectContaining({ name: 'pods/resize', kind: 'Pod', verbs: ['get', 'patch', 'update'] }),
      );
      const limits = { cpu: '500m', memory: '256Mi' };
      const created = await core.createNamespacedPod({
        namespace: 'default',
        body: pod('r1', {}, { limits, requests: limits }),
      });
      expect(created.status?.qosClass).toBe('Guaranteed');
      const resized = await resize('r1', {
        spec: {
          containers: [
            {
              name: 'main',
              image: 'ignored:2',
              resources: { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } },
            },
          ],
          activeDeadlineSeconds: 5,
        },
        metadata: { labels: { ignored: 'yes' } },
      });
      expect(resized.spec?.containers[0]?.resources).toEqual({
        limits: { cpu: '1', memory: '512Mi' },
        requests: { cpu: '1', memory: '512Mi' },
      });
      expect(resized.spec?.containers[0]?.image).toBe('nginx:1.25');
      expect(resized.spec?.activeDeadlineSeconds).toBeUndefined();
      expect(resized.metadata?.labels?.ignored).toBeUndefined();
      const read = await rawRequest(cp, 'GET', '/api/v1/namespaces/default/pods/r1/resize');
      expect(read.body.kind).toBe('Pod');
    });

    it('refuses a plain update of resources and resizes with kube-apiserver causes', async () => {
      const plain = await expectStatus(() =>
        core.patchNamespacedPod({
          namespace: 'default',
          name: 'r1',
          body: [{ op: 'replace', path: '/spec/containers/0/resources/limits/cpu', value: '2' }],
        }),
      );
      expect(plain.message.startsWith(`Pod "r1" is invalid: ${FORBIDDEN_PREFIX}`)).toBe(true);
      const qos = await expectStatus(() =>
        resize('r1', {
          spec: {
            containers: [
              {
                name: 'main',
                resources: { limits: { cpu: '2', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } },
              },
            ],
          },
        }),
      );
      expect(qos.message).toBe(
        'Pod "r1" is invalid: spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing',
      );
      const removed = await expectStatus(() =>
        resize('r1', {
          spec: { containers: [{ name: 'main', resources: { limits: { cpu: '1', memory: '512Mi' } } }] },
        }),
      );
      expect(removed.message).toContain(
        'spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed',
      );
      const memory = await expectStatus(() =>
        resize('r1', {
          spec: {
            containers: [
              {
                name: 'main',
                resources: { limits: { cpu: '1', memory: '128Mi' }, requests: { cpu: '1', memory: '128Mi' } },
              },
            ],
          },
        }),
      );
      expect(memory.message).toBe(
        'Pod "r1" is invalid: spec.containers[0].resources.limits[memory]: Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer',
      );
      const other = await expectStatus(() =>
        resize('r1', {
          spec: {
            containers: [
              {
                name: 'main',
                resources: {
                  limits: { cpu: '1', memory: '512Mi', 'ephemeral-storage': '1Gi' },
                  requests: { cpu: '1', memory: '512Mi', 'ephemeral-storage': '1Gi' },
                },
              },
            ],
          },
        }),
      );
      expect(other.message).toBe(
        'Pod "r1" is invalid: spec: Forbidden: only cpu and memory resources are mutable',
      );
      const policyChange = await expectStatus(() =>
        resize('r1', {
          spec: {
            containers: [
              {
                name: 'main',
                resources: { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } },
                resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
              },
            ],
          },
        }),
      );
      expect(policyChange.message).toBe(
        'Pod "r1" is invalid: spec: Forbidden: only cpu and memory resources are mutable',
      );
      const limits = { cpu: '1', memory: '256Mi' };
      await core.createNamespacedPod({
        namespace: 'default',
        body: {
          ...pod('r3', {}, { limits, requests: limits }),
          spec: {
            containers: [
              {
                name: 'main',
                image: 'nginx:1.25',
                resources: { limits, requests: limits },
                resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
              },
            ],
          },
        },
      });
      const lowered = await resize('r3', {
        spec: {
          containers: [
            {
              name: 'main',
              resources: { limits: { cpu: '1', memory: '128Mi' }, requests: { cpu: '1', memory: '128Mi' } },
              resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
            },
          ],
        },
      });
      expect(lowered.spec?.containers[0]?.resources?.limits?.memory).toBe('128Mi');
    });

    it('refuses a running pod whose node reports no container resources', async () => {
      const created = await core.createNamespacedPod({
        namespace: 'default',
        body: pod('r2', {}, { requests: { cpu: '100m' } }),
      });
      await core.patchNamespacedPodStatus(
        {
          namespace: 'default',
          name: 'r2',
          body: {
            status: {
              containerStatuses: [
                {
                  name: 'main',
                  state: { running: {} },
                  ready: true,
                  restartCount: 0,
                  image: 'nginx:1.25',
                  imageID: '',
                },
              ],
            },
          },
        },
        MERGE,
      );
      expect(created.status?.qosClass).toBe('Burstable');
      const status = await expectStatus(() =>
        resize('r2', { spec: { containers: [{ name: 'main', resources: { requests: { cpu: '200m' } } }] } }),
      );
      expect(status.message).toBe(
        'Pod "r2" is invalid: spec: Forbidden: Pod running on node without support for resize',
      );
    });
  });
});
