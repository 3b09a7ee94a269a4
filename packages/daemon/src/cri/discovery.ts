import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CriClient } from '@kruise/cri/client';

/** Sockets tried under the host's /var/run, in upstream's order. */
export const CANDIDATE_SOCKETS = [
  'containerd.sock',
  'containerd/containerd.sock',
  'crio.sock',
  'crio/crio.sock',
  'cri-dockerd.sock',
  'cri-dockerd/cri-dockerd.sock',
];

/** A runtime that answered: its client and what it said about itself. */
export interface DiscoveredRuntime {
  client: CriClient;
  endpoint: string;
  runtimeName: string;
  runtimeVersion: string;
}

/** Whether a socket serves CRI v1: Version, ImageFsInfo and ListImages must all answer. */
async function probe(endpoint: string, timeoutMs: number): Promise<DiscoveredRuntime> {
  const client = new CriClient(endpoint, { defaultTimeoutMs: timeoutMs });
  try {
    const version = await client.version();
    await client.imageFsInfo();
    await client.listImages();
    return {
      client,
      endpoint: client.endpoint,
      runtimeName: version.runtimeName,
      runtimeVersion: version.runtimeVersion,
    };
  } catch (err) {
    client.close();
    throw err;
  }
}

/**
 * Finds the node's container runtime: the given endpoint, or the first of upstream's candidate
 * sockets under `hostRunDir` that answers CRI v1. Fails with a message naming every path tried.
 */
export async function discoverRuntime(
  options: { endpoint?: string; hostRunDir?: string; timeoutMs?: number } = {},
): Promise<DiscoveredRuntime> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const tried: string[] = [];
  const candidates = options.endpoint
    ? [options.endpoint.replace(/^unix:\/\//, '')]
    : CANDIDATE_SOCKETS.map((s) => join(options.hostRunDir ?? '/hostvarrun', s));
  for (const path of candidates) {
    if (!existsSync(path)) {
      tried.push(`${path} (missing)`);
      continue;
    }
    try {
      return await probe(path, timeoutMs);
    } catch (err) {
      tried.push(`${path} (${(err as Error).message})`);
    }
  }
  throw new Error(`not found container runtime sock: tried ${tried.join(', ')}`);
}
