import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { kubeTime } from '@kruise/kube-compat';
import { isAlreadyExists, type KubeClient, Resources } from '@kruise/runtime';
import type { Node, NodeCondition, NodeStatus } from 'kubernetes-types/core/v1.js';

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
  /** Why the runtime's network is not ready (runtimeNetworkNotReady), if it is not: the node is then not Ready. */
  networkNotReady?: string;
}

/** The machine's capacity as kubelet reports it (all of it allocatable: the local node reserves nothing). */
export function nodeCapacity(): Record<string, string> {
  return { cpu: String(cpus().length), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: '110' };
}

const readOr = (file: string, fallback = '') => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return fallback;
  }
};

/** The machine identity kubelet reads (boot ID, machine ID, kernel, OS image). */
function machineInfo() {
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readOr('/etc/os-release'))?.[1];
  return {
    bootID: readOr('/proc/sys/kernel/random/boot_id'),
    machineID: readOr('/etc/machine-id'),
    systemUUID: readOr('/sys/class/dmi/id/product_uuid'),
    kernelVersion: release(),
    osImage: pretty ?? 'Linux',
  };
}

/** The Node's Ready condition as kubelet words it, without its times. */
function readyCondition(facts: NodeFacts) {
  return facts.networkNotReady
    ? { type: 'Ready', status: 'False', reason: 'KubeletNotReady', message: facts.networkNotReady }
    : { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' };
}

/** The Node's status as kubelet reports it: Ready, addresses, capacity and node info. */
export function nodeStatus(facts: NodeFacts, readySince?: string): NodeStatus {
  const now = kubeTime();
  const capacity = nodeCapacity();
  return {
    conditions: [{ ...readyCondition(facts), lastHeartbeatTime: now, lastTransitionTime: readySince ?? now }],
    addresses: [
      { type: 'InternalIP', address: facts.hostIP },
      { type: 'Hostname', address: facts.name },
    ],
    capacity,
    allocatable: capacity,
    daemonEndpoints: { kubeletEndpoint: { Port: facts.kubeletPort ?? 0 } },
    nodeInfo: {
      ...machineInfo(),
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: '',
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
    const node = (await client.get(Resources.Node, undefined, facts.name)) as Node;
    const ready = (node.status?.conditions ?? []).find((c: NodeCondition) => c.type === 'Ready');
    if (ready?.status === readyCondition(facts).status) since = ready.lastTransitionTime;
  }
  await client.mergePatchStatus(Resources.Node, undefined, facts.name, { status: nodeStatus(facts, since) });
}
