import { GENERATED_HEADER, renderCrdFiles } from '@kruise/api/schemas';
import { stringify } from 'yaml';
import { namespaces, webhookConfigurationObjects, webhookObjects } from './objects.ts';
import { daemonRbac, managerRbac } from './rbac.ts';
import { daemonSet, managerDeployment } from './workloads.ts';

const HEADER = GENERATED_HEADER.replace('packages/api', 'packages/deploy and packages/api');
const yaml = (objects: object[]) => objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');

/**
 * Every file of the cluster install under deploy/: path → text. The CRDs come from packages/api;
 * `deploy/kruise.yaml` holds everything in apply order for `kubectl apply -f`.
 */
export function renderDeployFiles(): Map<string, string> {
  const crds = renderCrdFiles();
  const parts: [string, object[]][] = [
    ['deploy/namespaces.yaml', namespaces()],
    ['deploy/rbac/manager.yaml', managerRbac()],
    ['deploy/rbac/daemon.yaml', daemonRbac()],
    ['deploy/webhook/service.yaml', webhookObjects()],
    ['deploy/webhook/webhook-configurations.yaml', webhookConfigurationObjects()],
    ['deploy/manager/deployment.yaml', [managerDeployment()]],
    ['deploy/daemon/daemonset.yaml', [daemonSet()]],
  ];
  const files = new Map<string, string>();
  for (const [path, objects] of parts) files.set(path, HEADER + yaml(objects));
  const order = ['deploy/namespaces.yaml', ...[...crds.keys()], ...parts.slice(1).map(([p]) => p)];
  files.set(
    'deploy/kustomization.yaml',
    HEADER +
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: order.map((p) => p.replace(/^deploy\//, '')),
      }),
  );
  const all = [
    yaml(namespaces()),
    ...[...crds.values()].map((t) => t.replace(GENERATED_HEADER, '')),
    ...parts.slice(1).map(([, objects]) => yaml(objects)),
  ];
  files.set('deploy/kruise.yaml', HEADER + all.map((t) => t.trimEnd()).join('\n---\n') + '\n');
  return files;
}
