import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';

/** Where a pod reaches the API server. */
export interface ApiServerAddress {
  host: string;
  port: number;
}

const LOOPBACK = /^(127\.|localhost$|::1$|\[::1\]$)/;

/** An IPv4 address as a 32-bit number. */
const ipv4 = (a: string) => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);

/** This machine's IPv4 address on the subnet of `ip` (the pod bridge's gateway for a pod's IP), if any. */
export function hostAddressOnSubnetOf(
  ip: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string | undefined {
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip)) return undefined;
  for (const list of Object.values(interfaces))
    for (const i of list ?? []) {
      if (i.family !== 'IPv4' || i.internal) continue;
      const mask = ipv4(i.netmask);
      // (unsigned: a bitwise AND of two 32-bit numbers is signed in JavaScript)
      if ((ipv4(i.address) & mask) >>> 0 === (ipv4(ip) & mask) >>> 0 && i.address !== ip) return i.address;
    }
  return undefined;
}

/**
 * The API server's address as a pod reaches it. A host-network pod reaches it where the node
 * does. Outside the host network the machine's loopback is not the pod's: a server the node reaches
 * on loopback is reached at this machine's address on the pod's subnet (the bridge's gateway, where
 * the control plane also listens when started with that address), same port.
 */
export function apiServerForPod(
  server: string,
  hostNetwork: boolean,
  podIP: string,
  interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>,
): ApiServerAddress {
  const url = new URL(server);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (hostNetwork || !LOOPBACK.test(host)) return { host, port };
  return { host: hostAddressOnSubnetOf(podIP, interfaces) ?? host, port };
}

/**
 * kubelet's environment of the `kubernetes` Service in `default` (envvars.FromServices for its one
 * port, named https): what in-cluster clients read. Here the address is where the pod reaches the
 * API server, as there is no kube-proxy to carry a ClusterIP there.
 */
export function kubernetesServiceEnv({ host, port }: ApiServerAddress): Map<string, string> {
  const url = `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const p = `KUBERNETES_PORT_${port}_TCP`;
  return new Map([
    ['KUBERNETES_SERVICE_HOST', host],
    ['KUBERNETES_SERVICE_PORT', String(port)],
    ['KUBERNETES_SERVICE_PORT_HTTPS', String(port)],
    ['KUBERNETES_PORT', url],
    [p, url],
    [`${p}_PROTO`, 'tcp'],
    [`${p}_PORT`, String(port)],
    [`${p}_ADDR`, host],
  ]);
}
