import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlane } from '@kruise/control-plane';
import { KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import {
  installKruiseApi,
  type Program,
  pointWebhookService,
  startDaemonProcess,
  startLocalNodeProcess,
  startManagerProcess,
} from '@kruise/stack/processes';
import { inject } from 'vitest';
import { eventually } from '../support/poll.ts';

/** The whole system on one machine: control plane (in the test process), then kruise-manager, a local node and kruise-daemon as processes on the test containerd. */
export interface System {
  cp: ControlPlane;
  client: KubeClient;
  kubeconfig: string;
  node: string;
  criSocket: string;
  registry: string;
  manager: Program;
  localNode: Program;
  daemon: Program;
  /** Restarts the local node (e.g. after a test stopped it). */
  startLocalNode(): Promise<Program>;
  stop(): Promise<void>;
}

/** Starts the system for one test file. */
export async function startSystem(node: string): Promise<System> {
  const dir = mkdtempSync(join(tmpdir(), 'kruise-e2e-'));
  const cp = await ControlPlane.start();
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  const client = KubeClient.fromString(cp.kubeconfig());
  await installKruiseApi(client);
  const criSocket = inject('criSocket');
  const [{ program: manager, webhookPort }, localNode] = await Promise.all([
    startManagerProcess(kubeconfig),
    startLocalNodeProcess(kubeconfig, node, `unix://${criSocket}`, ['--restart-backoff=1s']),
  ]);
  await pointWebhookService(client, webhookPort);
  const daemon = await startDaemonProcess(kubeconfig, node, `unix://${criSocket}`);
  const system: System = {
    cp,
    client,
    kubeconfig,
    node,
    criSocket,
    registry: inject('registry'),
    manager,
    localNode,
    daemon,
    async startLocalNode() {
      system.localNode = await startLocalNodeProcess(kubeconfig, node, `unix://${criSocket}`, [
        '--restart-backoff=1s',
      ]);
      return system.localNode;
    },
    async stop() {
      await assertNoSecretInLogs(client, [system.manager, system.localNode, system.daemon]);
      // Pods first, through the local node, so no container outlives the file.
      const pods = await client.list(Resources.Pod).catch(() => ({ items: [] as KubeObject[] }));
      await Promise.all(
        pods.items
          .filter((p) => p.spec?.nodeName === node)
          .map((p) =>
            client
              .delete(Resources.Pod, p.metadata!.namespace!, p.metadata!.name!, { gracePeriodSeconds: 1 })
              .catch(() => undefined),
          ),
      );
      await eventually(
        async () => (await client.list(Resources.Pod)).items.every((p) => p.spec?.nodeName !== node),
        30_000,
        100,
      ).catch(() => undefined);
      await Promise.all([system.daemon.stop(), system.manager.stop(), system.localNode.stop()]);
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return system;
}

/** Polls until `check` returns a truthy value (30 s, every 50 ms). */
export const until = <T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000) =>
  eventually(check, timeoutMs, 50);

/** A busybox shell loop that exits at once on SIGTERM (sh as PID 1 ignores it otherwise). */
export const LOOP = ['sh', '-c', "trap 'exit 0' TERM; while true; do sleep 0.2; done"];

/**
 * Fails when any process printed the contents of a Secret stored in the cluster (the decoded
 * values, their base64, and the passwords inside docker config JSON) — run for every system.
 */
export async function assertNoSecretInLogs(client: KubeClient, programs: Program[]): Promise<void> {
  const secrets = await client.list(Resources.Secret).catch(() => ({ items: [] as KubeObject[] }));
  const needles = new Set<string>();
  for (const s of secrets.items)
    for (const b64 of Object.values((s.data ?? {}) as Record<string, string>)) {
      const text = Buffer.from(b64, 'base64').toString('utf8');
      if (b64.length >= 12) needles.add(b64);
      if (text.length >= 12) needles.add(text);
      for (const m of text.matchAll(/"(?:password|auth|identitytoken)"\s*:\s*"([^"]{6,})"/g))
        needles.add(m[1]!);
    }
  for (const p of programs)
    for (const needle of needles)
      if (p.output().includes(needle)) throw new Error(`${p.name} wrote the contents of a Secret to its log`);
}
