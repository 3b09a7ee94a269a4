import type { BroadcastJob } from '@kruise/api';
import { type NodeFitNode, type NodeFitPodSpec, nodeFitFailures } from '@kruise/kube-compat';
import type { Node, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { assignedNode } from './pods.ts';

/** Where a job's pods belong (upstream's getNodesToRunPod). */
export interface JobPlacement {
  /** Every node the job runs on: its pod there, or undefined while it has none. */
  desired: Map<string, Pod | undefined>;
  /** Nodes that fit and have no pod of the job yet. */
  rest: Node[];
  /** Pods on nodes that no longer fit (not being deleted already). */
  toDelete: Pod[];
}

/** The pod a job would create on a node, for the fit check (upstream's NewMockPod): its template, on that node. */
const mockSpec = (template: PodSpec | undefined, nodeName: string): NodeFitPodSpec =>
  ({ ...template, nodeName }) as NodeFitPodSpec;

/** Why the job's pod would not fit `node` (empty when it fits): name, affinity, taints, cordon, allocatable. */
export function jobNodeFit(job: BroadcastJob, node: Node): string[] {
  return nodeFitFailures(mockSpec(job.spec?.template?.spec, node.metadata?.name ?? ''), node as NodeFitNode);
}

/**
 * The job's placement over `nodes` (upstream's getNodesToRunPod). A node with a pod of the job
 * keeps it while the pod still fits the node; a pod that no longer fits is to be deleted. A node
 * without one is desired when the job's pod would fit it — its name, affinity, taints, cordon and
 * allocatable, as upstream checks it: a node busy with other pods still gets the job's pod, which
 * waits there for room, so a job that must run on every node never skips one.
 */
export function placeJob(job: BroadcastJob, nodes: Node[], podOnNode: Map<string, Pod>): JobPlacement {
  const out: JobPlacement = { desired: new Map(), rest: [], toDelete: [] };
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    const pod = podOnNode.get(name);
    if (pod) {
      const fits = nodeFitFailures(pod.spec as NodeFitPodSpec, node as NodeFitNode).length === 0;
      if (!fits && !pod.metadata?.deletionTimestamp) {
        out.toDelete.push(pod);
        continue;
      }
      out.desired.set(name, pod);
      continue;
    }
    if (jobNodeFit(job, node).length) continue;
    out.rest.push(node);
    out.desired.set(name, undefined);
  }
  return out;
}

/** The job's pods by the node each is assigned or pinned to; `duplicate` is told of a second pod on a node. */
export function podsByNode(pods: Pod[], duplicate: (pod: Pod, node: string) => void): Map<string, Pod> {
  const out = new Map<string, Pod>();
  for (const pod of pods) {
    const node = assignedNode(pod);
    if (out.has(node)) duplicate(pod, node);
    out.set(node, pod);
  }
  return out;
}
