/**
 * Which node a daemon pod is for. A daemon controller does not set `spec.nodeName`: it pins each pod
 * to its node with a required node affinity on the node's name (`matchFields` `metadata.name` In
 * [node]) and lets the scheduler bind it.
 */

/** The field a node-name pin matches on. */
export const OBJECT_NAME_FIELD = 'metadata.name';

/** A node selector requirement on a field or label. */
interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

/** What pinning reads and writes of a pod's affinity. */
export interface PinnableAffinity {
  nodeAffinity?: {
    requiredDuringSchedulingIgnoredDuringExecution?: {
      nodeSelectorTerms: { matchExpressions?: Requirement[]; matchFields?: Requirement[] }[];
    };
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/**
 * The affinity with its required node terms replaced by the one that pins `nodeName`
 * (ReplaceDaemonSetPodNodeNameNodeAffinity): safe, because the controller has already checked that
 * the node fits the template's own terms. Preferred terms and pod (anti-)affinity are kept.
 */
export function replaceNodeNameAffinity<A extends PinnableAffinity>(
  affinity: A | undefined,
  nodeName: string,
): A {
  const required = {
    nodeSelectorTerms: [{ matchFields: [{ key: OBJECT_NAME_FIELD, operator: 'In', values: [nodeName] }] }],
  };
  return {
    ...(affinity ?? ({} as A)),
    nodeAffinity: { ...affinity?.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: required },
  };
}

/** What {@link targetNodeName} reads of a pod. */
export interface PinnedPod {
  metadata?: { name?: string; namespace?: string };
  spec?: { nodeName?: string; affinity?: PinnableAffinity };
}

/**
 * The node a daemon pod is for (GetTargetNodeName): its `spec.nodeName` once bound, otherwise the
 * node its required affinity pins by name.
 * @throws Error in upstream's words when the pod names no single node.
 */
export function targetNodeName(pod: PinnedPod): string {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const id = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required)
    throw new Error(
      `no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod ${id}`,
    );
  const terms = required.nodeSelectorTerms ?? [];
  if (!terms.length)
    throw new Error(`no nodeSelectorTerms in requiredDuringSchedulingIgnoredDuringExecution of pod ${id}`);
  for (const term of terms)
    for (const exp of term?.matchFields ?? []) {
      if (exp.key !== OBJECT_NAME_FIELD || exp.operator !== 'In') continue;
      if (exp.values?.length !== 1)
        throw new Error(`the matchFields value of '${OBJECT_NAME_FIELD}' is not unique for pod ${id}`);
      return exp.values[0]!;
    }
  throw new Error(`no node name found for pod ${id}`);
}
