import type { CoreV1Api, V1Node, V1Taint } from '@kubernetes/client-node';

/** What a test node looks like. */
export interface TestNode {
  labels?: Record<string, string>;
  taints?: V1Taint[];
  unschedulable?: boolean;
  /** Ready condition status (default True); undefined-like `none` leaves it out. */
  ready?: 'True' | 'False' | 'Unknown' | 'none';
  cpu?: string;
  memory?: string;
  pods?: string;
}

/** Registers a node as a kubelet would (create, then status with Ready and allocatable) through client-node. */
export async function createNode(core: CoreV1Api, name: string, spec: TestNode = {}): Promise<V1Node> {
  await core.createNode({
    body: {
      metadata: { name, labels: { 'kubernetes.io/hostname': name, ...spec.labels } },
      spec: { taints: spec.taints, unschedulable: spec.unschedulable },
    },
  });
  const allocatable = { cpu: spec.cpu ?? '4', memory: spec.memory ?? '8Gi', pods: spec.pods ?? '110' };
  const now = new Date().toISOString();
  const status = {
    capacity: allocatable,
    allocatable,
    conditions:
      spec.ready === 'none'
        ? []
        : [
            {
              type: 'Ready',
              status: spec.ready ?? 'True',
              reason: 'KubeletReady',
              message: 'kubelet is posting ready status',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
  };
  // A JSON patch: the node lifecycle controller may have tainted the new node meanwhile.
  return core.patchNodeStatus({ name, body: [{ op: 'add', path: '/status', value: status }] });
}
