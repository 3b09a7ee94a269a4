import { type KubeClient, type KubeObject, Resources } from '@kruise/runtime';
import type { Program } from '@kruise/stack/program';
import { inject } from 'vitest';
import { type KruiseSystem, startKruiseSystem } from '../support/kruise-system.ts';

/** The whole system on one machine: control plane (in the test process), then kruise-manager, a local node and kruise-daemon as processes on the test containerd. */
export interface System extends KruiseSystem {
  criSocket: string;
  registry: string;
}

/**
 * Starts the system for one test file (`managerArgs`: extra kruise-manager flags such as feature
 * gates); its stop first checks that no process logged a Secret.
 */
export async function startSystem(node: string, opts: { managerArgs?: string[] } = {}): Promise<System> {
  const criSocket = inject('criSocket');
  const kruise = await startKruiseSystem(node, `unix://${criSocket}`, ['--restart-backoff=1s'], opts);
  const stopKruise = kruise.stop;
  return Object.assign(kruise, {
    criSocket,
    registry: inject('registry'),
    async stop() {
      await assertNoSecretInLogs(kruise.client, [kruise.manager, kruise.localNode, kruise.daemon]);
      await stopKruise();
    },
  });
}

export { until } from '../support/poll.ts';

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
