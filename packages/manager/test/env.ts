import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KruiseResources, type NodeImage } from '@kruise/api';

import { ControlPlane } from '@kruise/control-plane';
import { kubeTime } from '@kruise/kube-compat';
import { KubeClient, type KubeObject, Resources, silentLogger } from '@kruise/runtime';
import { parse } from 'yaml';
import {
  type AppTuning,
  type ManagerApp,
  parseOptions,
  startManager,
  webhookConfigurations,
} from '../src/index.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Installs the Kruise CRDs of deploy/crds. */
export async function installCrds(client: KubeClient): Promise<void> {
  for (const file of readdirSync(join(root, 'deploy/crds'))) {
    await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parse(readFileSync(join(root, 'deploy/crds', file), 'utf8')),
    });
  }
}

/**
 * A control plane with the Kruise CRDs, the namespaces and webhook configurations of deploy/, and
 * kruise-manager running: one replica, or `replicas` with leader election (`apps`; `app` is the
 * first), the webhook Service's endpoints spreading the control plane's calls over them.
 */
export async function startEnv(
  flags: string[] = [],
  tuning: AppTuning = {},
  { replicas = 1 }: { replicas?: number } = {},
): Promise<{ cp: ControlPlane; client: KubeClient; app: ManagerApp; apps: ManagerApp[] }> {
  const cp = await ControlPlane.start({ bookmarkIntervalMs: 2000 });
  const client = KubeClient.fromString(cp.kubeconfig());
  await installCrds(client);
  await client.create(Resources.Namespace, {
    metadata: { name: 'kruise-system', labels: { 'control-plane': 'controller-manager' } },
  });
  await client.create(Resources.Namespace, { metadata: { name: 'kruise-daemon-config' } });
  const options = parseOptions([
    '--metrics-addr=127.0.0.1:0',
    '--health-probe-addr=127.0.0.1:0',
    '--webhook-host=127.0.0.1',
    '--webhook-port=0',
    `--enable-leader-election=${replicas > 1}`,
    '--nodeimage-creation-delay=0s',
    '--feature-gates=ImagePullJobGate=true',
    ...flags,
  ]);
  const configs = webhookConfigurations(options.featureGates);
  await client.create(Resources.MutatingWebhookConfiguration, configs.mutating);
  await client.create(Resources.ValidatingWebhookConfiguration, configs.validating);
  await client.create(Resources.Service, {
    metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
    spec: { ports: [{ port: 443, targetPort: 9876 }] },
  });
  const apps: ManagerApp[] = [];
  for (let i = 0; i < replicas; i++)
    apps.push(
      await startManager(
        replicas > 1 ? KubeClient.fromString(cp.kubeconfig()) : client,
        options,
        silentLogger,
        replicas > 1 ? { ...tuning, identity: `replica-${i}` } : tuning,
      ),
    );
  await client.create(Resources.Endpoints, {
    metadata: { name: 'kruise-webhook-service', namespace: 'kruise-system' },
    subsets: apps.map((a) => ({ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: a.webhookPort }] })),
  });
  return { cp, client, app: apps[0]!, apps };
}

/** Registers a Ready node (its NodeImage follows), with labels and taints. */
export async function addNode(
  client: KubeClient,
  name: string,
  labels: Record<string, string> = {},
  taints: { key: string; value?: string; effect: string }[] = [],
): Promise<void> {
  await client.create(Resources.Node, {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    ...(taints.length ? { spec: { taints } } : {}),
    status: {
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: new Date(Date.now() - 60_000).toISOString() },
      ],
    },
  });
}

/** Plays the daemon: reports a phase for the current version of a tag on a node. */
export async function report(
  client: KubeClient,
  node: string,
  image: string,
  tag: string,
  phase: 'Pulling' | 'Succeeded' | 'Failed',
  message?: string,
): Promise<void> {
  const ni = await client.get<NodeImage & KubeObject>(KruiseResources.NodeImage, undefined, node);
  const version = ni.spec?.images?.[image]?.tags.find((t) => t.tag === tag)?.version ?? 0;
  const statuses = { ...(ni.status?.imageStatuses ?? {}) };
  const others = (statuses[image]?.tags ?? []).filter((t) => t.tag !== tag);
  const now = kubeTime();
  statuses[image] = {
    tags: [
      ...others,
      {
        tag,
        phase,
        version,
        startTime: now,
        ...(phase !== 'Pulling' ? { completionTime: now, progress: 100 } : { progress: 10 }),
        ...(message ? { message } : {}),
      },
    ],
  };
  await client.mergePatchStatus(KruiseResources.NodeImage, undefined, node, {
    status: { desired: ni.status?.desired ?? 0, imageStatuses: statuses },
  });
}

export { eventually, sourceOf, WAIT_MS } from '../../../test/support/poll.ts';
