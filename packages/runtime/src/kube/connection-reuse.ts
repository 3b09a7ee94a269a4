import type { KubeConfig } from '@kubernetes/client-node';

type DispatcherFactory = (cluster: unknown, agentOptions: unknown) => unknown;

/**
 * Makes every client built from `kc` share one keep-alive connection pool per TLS setup.
 *
 * client-node 2.0.1 builds a new undici Agent for every request (`KubeConfig.createDispatcher`),
 * so each call opens a fresh TLS connection: a handshake per request, and no reuse at all. This
 * wraps that factory on the instance and caches its result per context, cluster and user. See ADR 0005.
 */
export function withConnectionReuse(kc: KubeConfig): KubeConfig {
  const target = kc as unknown as {
    createDispatcher: DispatcherFactory;
    createDispatcherOptions: (c: unknown, o: unknown) => unknown;
  };
  const original = target.createDispatcher.bind(kc);
  const cache = new Map<string, unknown>();
  target.createDispatcher = (cluster, agentOptions) => {
    const c = cluster as { name?: string; server?: string } | null;
    const key = `${kc.getCurrentContext()}|${c?.name ?? ''}|${c?.server ?? ''}|${kc.getCurrentUser()?.name ?? ''}`;
    let dispatcher = cache.get(key);
    if (dispatcher === undefined) {
      dispatcher = original(cluster, agentOptions);
      cache.set(key, dispatcher);
    }
    return dispatcher;
  };
  return kc;
}
