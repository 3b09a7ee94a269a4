import { ControlPlane, type ControlPlaneOptions } from '@kruise/control-plane';
import { KubeClient } from '../src/index.ts';

/** A control plane and an admin client for it. */
export async function startEnv(
  options: ControlPlaneOptions = {},
): Promise<{ cp: ControlPlane; client: KubeClient }> {
  const cp = await ControlPlane.start(options);
  return { cp, client: KubeClient.fromString(cp.kubeconfig()) };
}

export { eventually } from '../../../test/support/poll.ts';

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
