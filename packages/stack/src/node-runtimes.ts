import { join } from 'node:path';
import { criStackRunner } from './runtime-stack.ts';

/** The zone label every node carries (topology spread, DaemonSet-like tests). */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** The i-th node's zone (0-based): zone-a, zone-b, … */
export const zoneOf = (i: number) => `zone-${String.fromCharCode(97 + (i % 26))}`;

/** The i-th node's name (0-based): the first keeps `base`, the others get `-2`, `-3` … */
export const nodeNameOf = (base: string, i: number) => (i === 0 ? base : `${base}-${i + 1}`);

/** One more node's containerd: its own images, containers and state, stopped by PID. */
export interface NodeRuntime {
  socket: string;
  down(): void;
}

/**
 * Starts containerd alone under `dir` (cri-stack.sh containerd-up), pulling from the registry
 * already serving on `registryPort`: another node's runtime, so which node has which image is real.
 * Its pods get a bridge and subnet of their own, unless `podNetwork` is false.
 * @throws with the script's own message when it fails.
 */
export function startNodeRuntime(
  dir: string,
  registryPort: number,
  opts: { podNetwork?: boolean } = {},
): NodeRuntime {
  const { script, run } = criStackRunner(dir, registryPort, opts);
  script('down');
  run('containerd-up');
  return { socket: join(dir, 'containerd/containerd.sock'), down: () => run('down', true) };
}
