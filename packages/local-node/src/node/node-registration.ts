import { cpus, totalmem } from 'node:os';
import { kubeTime } from '@kruise/api';
import { isAlreadyExists, type KubeClient, Resources } from '@kruise/runtime';

/** The kubelet version the Node reports: Kubernetes 1.33 (its container hash, its resize rules); the build metadata says it is this local node. */
export const KUBELET_VERSION = 'v1.33.0+kruise-local-node';

/** What the Node object says about this machine. */
export interface NodeFacts {
  name: string;
  hostIP: string;
  runtimeName: string;
  runtimeVersion: string;
  labels?: Record<string, string>;
  /** The port of the node's kubelet server (logs), on hostIP. */
  kubeletPort?: number;
}

/** The Node's status as kubelet reports it: Ready, addresses, capacity and node info. */
export function nodeStatus(facts: NodeFacts, readySince?: string): any {
  const now = kubeTime();
  const capacity = { cpu: String(cpus().length), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: '110' };
  return {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: now,
        lastTransitionTime: readySince ?? now,
      },
    ],
    addresses: [
      { type: 'InternalIP', address: facts.hostIP },
      { type: 'Hostname', address: facts.name },
    ],
    capacity,
    allocatable: capacity,
    daemonEndpoints: { kubeletEndpoint: { Port: facts.kubeletPort ?? 0 } },
    nodeInfo: {
      kubeletVersion: KUBELET_VERSION,
      containerRuntimeVersion: `${facts.runtimeName}://${facts.runtimeVersion}`,
      operatingSystem: 'linux',
      architecture: process.arch === 'x64' ? 'amd64' : process.arch,
    },
  };
}

/** Creates the Node (or adopts an existing one) and reports it Ready. */
export async function registerNode(client: KubeClient, facts: NodeFacts): Promise<void> {
  const labels = {
    'kubernetes.io/hostname': facts.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch,
    ...(facts.labels ?? {}),
  };
  try {
    await client.create(Resources.Node, { metadata: { name: facts.name, labels }, spec: {} });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    await client.mergePatch(Resources.Node, undefined, facts.name, { metadata: { labels } });
  }
  await heartbeat(client, facts, true);
}

/** Renews the Ready condition's heartbeat (keeping its transition time unless `fresh`). */
export async function heartbeat(client: KubeClient, facts: NodeFacts, fresh = false): Promise<void> {
  let since: string | undefined;
  if (!fresh) {
    const node = await client.get(Resources.Node, undefined, facts.name);
    const ready = (node.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    if (ready?.status === 'True') since = ready.lastTransitionTime;
  }
  await client.mergePatchStatus(Resources.Node, undefined, facts.name, { status: nodeStatus(facts, since) });
}
