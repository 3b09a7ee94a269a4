import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KRUISE_RESOURCES } from '@kruise/api/schemas';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, Resources } from '@kruise/runtime';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { kubectlPath } from '../../../test/support/kube-tools.ts';
import { renderDeployFiles } from '../src/index.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const files = renderDeployFiles();
const docs = (path: string) => parseAllDocuments(files.get(path)!).map((d) => d.toJS());

describe('deploy/ (the cluster install)', () => {
  it('matches the generator output (run `pnpm generate` after a change)', () => {
    for (const [path, text] of files)
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run pnpm generate`).toBe(text);
  });

  it('lists every file in the kustomization, each present', () => {
    const k = parse(files.get('deploy/kustomization.yaml')!);
    for (const r of k.resources) expect(existsSync(join(root, 'deploy', r)), r).toBe(true);
    const crds = k.resources.filter((r: string) => r.startsWith('crds/'));
    expect(crds).toHaveLength(KRUISE_RESOURCES.length);
    expect(k.resources).toHaveLength(files.size - 2 + crds.length);
  });

  it('runs the manager as upstream does: 2 replicas, leader election, probes, non-root, read-only root, resources', () => {
    const [d] = docs('deploy/manager/deployment.yaml');
    expect(d.spec.replicas).toBe(2);
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    expect(c.args).toContain('--enable-leader-election=true');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 8000 });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 8000 });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65534 });
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      readOnlyRootFilesystem: true,
    });
    expect(c.resources.limits).toEqual({ cpu: '200m', memory: '512Mi' });
    expect(pod.serviceAccountName).toBe('kruise-manager');
  });

  it('runs the daemon on every node: host network, /var/run read-only at /hostvarrun, NODE_NAME, /healthz on the node address at 10221', () => {
    const [ds] = docs('deploy/daemon/daemonset.yaml');
    const pod = ds.spec.template.spec;
    const c = pod.containers[0];
    expect(pod.hostNetwork).toBe(true);
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    expect(pod.volumes).toEqual([
      { name: 'runtime-socket', hostPath: { path: '/var/run', type: 'Directory' } },
    ]);
    expect(c.volumeMounts).toEqual([{ name: 'runtime-socket', mountPath: '/hostvarrun', readOnly: true }]);
    expect(c.env).toEqual([
      { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'NODE_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
      { name: 'LOG_LEVEL', value: 'info' },
    ]);
    // the node's address only (daemons of nodes sharing a machine do not collide); the probe goes there
    expect(c.args).toContain('--addr=$(NODE_IP):10221');
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 10221 });
    expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
  });

  it('names upstream webhook configurations, paths and failure policy', () => {
    const [mutating, validating] = docs('deploy/webhook/webhook-configurations.yaml');
    expect(mutating.metadata.name).toBe('kruise-mutating-webhook-configuration');
    expect(validating.metadata.name).toBe('kruise-validating-webhook-configuration');
    expect(mutating.webhooks.map((w: any) => w.clientConfig.service.path)).toContain(
      '/mutate-apps-kruise-io-v1alpha1-containerrecreaterequest',
    );
    expect(validating.webhooks.map((w: any) => w.clientConfig.service.path)).toEqual([
      '/validate-apps-kruise-io-v1alpha1-imagepulljob',
      '/validate-apps-kruise-io-v1alpha1-imagelistpulljob',
      '/validate-apps-kruise-io-v1alpha1-nodeimage',
      '/validate-apps-kruise-io-v1alpha1-cloneset',
      '/validate-apps-kruise-io-statefulset',
      '/validate-apps-kruise-io-daemonset',
      '/validate-apps-kruise-io-broadcastjob',
      '/validate-apps-kruise-io-advancedcronjob',
      '/validate-apps-kruise-io-sidecarset',
      // the pod webhooks vpod and vpodeviction (one path, as upstream), PodUnavailableBudget's
      '/validate-pod',
      '/validate-pod',
      '/validate-policy-kruise-io-podunavailablebudget',
      // deletion protection's, for kinds Kruise does not own
      '/validate-apps-deployment',
      '/validate-apps-replicaset',
      '/validate-apps-statefulset',
      '/validate-customresourcedefinition',
      '/validate-namespace',
      '/validate-service',
      '/validate-ingress',
    ]);
    expect(mutating.webhooks.map((w: any) => w.name)).toEqual(
      expect.arrayContaining(['mcloneset.kb.io', 'mpod.kb.io']),
    );
    const byName = (list: any[], name: string) => list.find((w) => w.name === name);
    expect(byName(validating.webhooks, 'vpod.kb.io').rules[0]).toMatchObject({
      resources: ['pods'],
      operations: ['UPDATE', 'DELETE'],
    });
    expect(byName(validating.webhooks, 'vpodeviction.kb.io').rules[0]).toMatchObject({
      resources: ['pods/eviction'],
      operations: ['CREATE'],
    });
    for (const name of ['mpod.kb.io', 'vpod.kb.io', 'vpodeviction.kb.io'])
      expect(byName([...mutating.webhooks, ...validating.webhooks], name).namespaceSelector).toEqual({
        matchExpressions: [{ key: 'control-plane', operator: 'DoesNotExist' }],
      });
    expect(byName(validating.webhooks, 'vcloneset.kb.io').rules[0].operations).toEqual([
      'CREATE',
      'UPDATE',
      'DELETE',
    ]);
    // Advanced StatefulSet's, at upstream's paths, for both served versions.
    const rule = (operations: string[]) => [
      {
        apiGroups: ['apps.kruise.io'],
        apiVersions: ['v1alpha1', 'v1beta1'],
        operations,
        resources: ['statefulsets'],
        scope: '*',
      },
    ];
    expect(byName(mutating.webhooks, 'mstatefulset.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/mutate-apps-kruise-io-statefulset' } },
      rules: rule(['CREATE', 'UPDATE']),
      sideEffects: 'None',
    });
    expect(byName(validating.webhooks, 'vstatefulset.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/validate-apps-kruise-io-statefulset' } },
      rules: rule(['CREATE', 'UPDATE', 'DELETE']),
      sideEffects: 'None',
    });
    // BroadcastJob's, at upstream's paths, for both served versions.
    const bcjRule = [{ ...rule(['CREATE', 'UPDATE'])[0], resources: ['broadcastjobs'] }];
    expect(byName(mutating.webhooks, 'mbroadcastjob.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/mutate-apps-kruise-io-broadcastjob' } },
      rules: bcjRule,
    });
    expect(byName(validating.webhooks, 'vbroadcastjob.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/validate-apps-kruise-io-broadcastjob' } },
      rules: bcjRule,
    });
    // AdvancedCronJob's, at upstream's paths, for both served versions.
    const acjRule = [{ ...rule(['CREATE', 'UPDATE'])[0], resources: ['advancedcronjobs'] }];
    expect(byName(mutating.webhooks, 'madvancedcronjob.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/mutate-apps-kruise-io-advancedcronjob' } },
      rules: acjRule,
    });
    expect(byName(validating.webhooks, 'vadvancedcronjob.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/validate-apps-kruise-io-advancedcronjob' } },
      rules: acjRule,
    });
    // SidecarSet's, at upstream's paths, for both served versions.
    const ssRule = [{ ...rule(['CREATE', 'UPDATE'])[0], resources: ['sidecarsets'] }];
    expect(byName(mutating.webhooks, 'msidecarset.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/mutate-apps-kruise-io-sidecarset' } },
      rules: ssRule,
      sideEffects: 'None',
      failurePolicy: 'Fail',
    });
    expect(byName(validating.webhooks, 'vsidecarset.kb.io')).toMatchObject({
      clientConfig: { service: { path: '/validate-apps-kruise-io-sidecarset' } },
      rules: ssRule,
      sideEffects: 'None',
      failurePolicy: 'Fail',
    });
    const mpod = byName(mutating.webhooks, 'mpod.kb.io');
    expect(mpod.clientConfig.service.path).toBe('/mutate-pod');
    expect(mpod.rules).toEqual([
      { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: '*' },
    ]);
    expect(mpod.namespaceSelector).toEqual({
      matchExpressions: [{ key: 'control-plane', operator: 'DoesNotExist' }],
    });
    // kruise-system is skipped by the pod webhook, so the manager's own pods never wait for it.
    expect(docs('deploy/namespaces.yaml')[0].metadata.labels).toEqual({
      'control-plane': 'controller-manager',
    });
    expect(new Set([...mutating.webhooks, ...validating.webhooks].map((w: any) => w.failurePolicy))).toEqual(
      new Set(['Fail']),
    );
  });

  it('applies with `kubectl apply -f deploy/kruise.yaml` to the control plane', async () => {
    const cp = await ControlPlane.start();
    const dir = mkdtempSync(join(tmpdir(), 'deploy-'));
    try {
      const client = KubeClient.fromString(cp.kubeconfig());
      cp.writeKubeconfig(join(dir, 'kubeconfig'));
      // Asynchronously: the API server runs in this process.
      const run = await new Promise<{ status: number; stderr: string }>((resolve) => {
        const child = execFile(
          kubectlPath(),
          ['apply', '-f', join(root, 'deploy/kruise.yaml')],
          { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') }, timeout: 60_000 },
          (error, _out, stderr) =>
            resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
        );
        child.stdin?.end();
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const ds = await client.request(
        'GET',
        '/apis/apps/v1/namespaces/kruise-system/daemonsets/kruise-daemon',
      );
      expect(ds.spec.template.spec.hostNetwork).toBe(true);
      expect(
        (
          await client.get(
            Resources.CustomResourceDefinition,
            undefined,
            'containerrecreaterequests.apps.kruise.io',
          )
        ).spec.names.shortNames,
      ).toContain('crr');
    } finally {
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
