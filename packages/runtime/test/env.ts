import { ControlPlane, type ControlPlaneOptions } from '@kruise/control-plane';
import { KubeClient } from '../src/index.ts';

/** A control plane and an admin client for it. */
export async function startEnv(
  options: ControlPlaneOptions = {},
): Promise<{ cp: ControlPlane; client: KubeClient }> {
  const cp = await ControlPlane.start(options);
  return { cp, client: KubeClient.fromString(cp.kubeconfig()) };
}

/** Polls until `check` is truthy or the time is up. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
