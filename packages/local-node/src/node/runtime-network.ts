import type { StatusResponse__Output } from '@kruise/cri/generated/runtime/v1/StatusResponse';

/**
 * kubelet's words for a runtime whose `NetworkReady` condition is not true (no CNI network
 * configured, for one), or undefined when it is: the Node's Ready message and, prefixed with
 * `network is not ready: `, the NetworkNotReady event of a pod outside the host network.
 */
export function runtimeNetworkNotReady(response: StatusResponse__Output): string | undefined {
  const c = response.status?.conditions?.find((x) => x.type === 'NetworkReady');
  if (c?.status) return undefined;
  const condition = c ? `NetworkReady=false reason:${c.reason ?? ''} message:${c.message ?? ''}` : '<nil>';
  return `container runtime network not ready: ${condition}`;
}
