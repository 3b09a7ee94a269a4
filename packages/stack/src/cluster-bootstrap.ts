import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFeatureGates } from '@kruise/api';
import { DEPLOY_FEATURE_GATES, namespaces } from '@kruise/deploy';
import { webhookConfigurations } from '@kruise/manager';
import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import { parse } from 'yaml';
import { repoRoot } from './repo-root.ts';

const ignoreExists = async (create: () => Promise<unknown>) => {
  try {
    await create();
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
};

/**
 * Applies what a cluster install puts in place before kruise-manager starts: the CRDs, the
 * `kruise-system` and `kruise-daemon-config` namespaces, both webhook configurations (for
 * deploy/'s feature gates by default) and the webhook Service (idempotent).
 */
export async function installKruiseApi(client: KubeClient, gates = DEPLOY_FEATURE_GATES): Promise<void> {
  for (const file of readdirSync(join(repoRoot, 'deploy/crds')).sort()) {
    const crd = parse(readFileSync(join(repoRoot, 'deploy/crds', file), 'utf8'));
    await ignoreExists(() =>
      client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }),
    );
  }
  for (const ns of namespaces())
    await ignoreExists(() => client.create(Resources.Namespace, ns as KubeObject));
  const configs = webhookConfigurations(parseFeatureGates(gates));
  await ignoreExists(() => client.create(Resources.MutatingWebhookConfiguration, configs.mutating));
  await ignoreExists(() => client.create(Resources.ValidatingWebhookConfiguration, configs.validating));
  await ignoreExists(() =>
    client.create(Resources.Service, {
      metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
      spec: { ports: [{ port: 443, targetPort: 9876 }] },
    }),
  );
}

/**
 * Creates manifests in order (`kubectl apply` of fresh objects): the path comes from each object's
 * apiVersion and kind (plural = lower-case kind + "s", true of every kind in deploy/). Objects
 * that exist already are left as they are.
 */
export async function applyManifests(client: KubeClient, objects: any[]): Promise<void> {
  for (const obj of objects) {
    if (!obj) continue;
    const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
    const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const ns = obj.metadata?.namespace ? `/namespaces/${obj.metadata.namespace}` : '';
    await ignoreExists(() =>
      client.request('POST', `${base}${ns}/${obj.kind.toLowerCase()}s`, { body: obj }),
    );
  }
}

/**
 * Points `kruise-webhook-service` at webhook servers on 127.0.0.1 (there is no kube-proxy here):
 * one port, or one per kruise-manager replica (the API server then spreads its calls over them).
 * As one points a Service at a backend outside the cluster, its selector goes first (deploy/'s
 * selects the manager's pods): the Endpoints controller then leaves the hand-written Endpoints be.
 */
export async function pointWebhookService(client: KubeClient, port: number | number[]): Promise<void> {
  const ports = Array.isArray(port) ? port : [port];
  const service = await client
    .get(Resources.Service, 'kruise-system', 'kruise-webhook-service')
    .catch((err: { code?: number }) => {
      if (err.code === 404) return undefined;
      throw err;
    });
  if (service?.spec?.selector)
    await client.mergePatch(Resources.Service, 'kruise-system', 'kruise-webhook-service', {
      spec: { selector: null },
    });
  const subsets = ports.map((p) => ({ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: p }] }));
  try {
    await client.create(Resources.Endpoints, {
      metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
      subsets,
    });
  } catch {
    const current = await client.get(Resources.Endpoints, 'kruise-system', 'kruise-webhook-service');
    await client.update(Resources.Endpoints, { ...current, subsets });
  }
}

/**
 * Removes kruise's two webhook configurations: once no kruise-manager serves them, their fail-closed
 * pod webhooks (vpod, vpodeviction) would refuse every pod deletion, so a teardown that deletes pods
 * after stopping the manager withdraws them first.
 */
export async function withdrawWebhooks(client: KubeClient): Promise<void> {
  for (const [r, name] of [
    [Resources.ValidatingWebhookConfiguration, 'kruise-validating-webhook-configuration'],
    [Resources.MutatingWebhookConfiguration, 'kruise-mutating-webhook-configuration'],
  ] as const)
    await client.delete(r, undefined, name).catch(() => undefined);
}
