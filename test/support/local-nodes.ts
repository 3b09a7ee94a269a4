import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '@kruise/cri/client';
import { LocalNode, type LocalNodeOptions } from '@kruise/local-node';
import type { KubeClient } from '@kruise/runtime';
import {
  type NodeRuntime,
  nodeNameOf,
  startNodeRuntime,
  ZONE_LABEL,
  zoneOf,
} from '@kruise/stack/node-runtimes';

/** One of several local nodes: its Node name, zone, containerd and CRI client. */
export interface TestNode {
  name: string;
  zone: string;
  /** Its containerd's CRI socket path (for a kruise-daemon of the node). */
  socket: string;
  cri: CriClient;
  node: LocalNode;
}

/** Several local nodes for one test file, each on a containerd of its own; `stop` ends all of it. */
export interface TestNodes {
  nodes: TestNode[];
  stop(): Promise<void>;
}

/**
 * Starts `count` local nodes named `<base>`, `<base>-2` … in zones zone-a, zone-b …
 * (`topology.kubernetes.io/zone`), each on its own containerd (cri-stack.sh containerd-up under
 * `<criStackDir>-n<i>`) pulling from the test registry: images pulled on one node are not on the
 * others. Starts the runtimes one after another (2 cores) and the nodes at once.
 */
export async function startTestNodes(
  client: KubeClient,
  opts: { count: number; base: string; criStackDir: string; registry: string } & Partial<LocalNodeOptions>,
): Promise<TestNodes> {
  const { count, base, criStackDir, registry, ...nodeOptions } = opts;
  const registryPort = Number(registry.split(':').pop());
  const runtimes: NodeRuntime[] = [];
  const nodes: TestNode[] = [];
  const logs = mkdtempSync(join(tmpdir(), 'kruise-pod-logs-'));
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.node.stop()));
    for (const n of nodes) n.cri.close();
    for (const r of runtimes) r.down();
    rmSync(logs, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      const runtime = startNodeRuntime(`${criStackDir}-n${i + 1}`, registryPort);
      runtimes.push(runtime);
      const name = nodeNameOf(base, i);
      const cri = new CriClient(runtime.socket);
      const node = new LocalNode({
        client,
        cri,
        nodeName: name,
        labels: { [ZONE_LABEL]: zoneOf(i) },
        podLogsDir: join(logs, name),
        backoffInitialMs: 1000,
        retryMs: 500,
        ...nodeOptions,
      });
      nodes.push({ name, zone: zoneOf(i), socket: runtime.socket, cri, node });
    }
    await Promise.all(nodes.map((n) => n.node.start()));
  } catch (err) {
    await stop();
    throw err;
  }
  return { nodes, stop };
}
