/** A NodeSelectorRequirement: of a label (matchExpressions) or of a field (matchFields). */
export interface NodeSelectorRequirementFields {
  key: string;
  operator: string;
  values?: string[];
}

/** A NodeSelectorTerm: its requirements are ANDed. */
export interface NodeSelectorTermFields {
  matchExpressions?: NodeSelectorRequirementFields[];
  matchFields?: NodeSelectorRequirementFields[];
}

/** What placement reads of a Node. */
export interface NodeFields {
  metadata?: { name?: string; labels?: Record<string, string> };
}

/** What node affinity reads of a PodSpec. */
export interface NodeAffinityPodSpec {
  nodeSelector?: Record<string, string>;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTermFields[] };
      preferredDuringSchedulingIgnoredDuringExecution?: {
        weight?: number;
        preference?: NodeSelectorTermFields;
      }[];
    };
  };
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64): undefined where Go returns an error. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** A label key as apimachinery's IsQualifiedName accepts it: `[prefix/]name`. */
function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (name.length > 63 || !NAME.test(name)) return false;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (!prefix || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) return false;
  }
  return true;
}

/** Whether labels.NewRequirement accepts a label requirement (a valid key, operator, values). */
function labelRequirementValid(req: NodeSelectorRequirementFields): boolean {
  const values = req.values ?? [];
  if (!isQualifiedName(req.key ?? '')) return false;
  if (!values.every((v) => v.length <= 63 && LABEL_VALUE.test(v))) return false;
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      return values.length > 0;
    case 'Exists':
    case 'DoesNotExist':
      return values.length === 0;
    case 'Gt':
    case 'Lt':
      return values.length === 1 && parseInt64(values[0]!) !== undefined;
    default:
      return false;
  }
}

/** Whether nodeSelectorRequirementsAsFieldSelector accepts a field requirement: In or NotIn, one value. */
const fieldRequirementValid = (req: NodeSelectorRequirementFields): boolean =>
  (req.operator === 'In' || req.operator === 'NotIn') && req.values?.length === 1;

/** A valid label requirement against the node's labels (labels.Requirement.Matches). */
function labelMatches(req: NodeSelectorRequirementFields, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default: {
      if (!has) return false;
      const have = parseInt64(value!);
      if (have === undefined) return false;
      const want = parseInt64(values[0]!)!;
      return req.operator === 'Gt' ? have > want : have < want;
    }
  }
}

/**
 * Whether a NodeSelectorTerm admits the node (component-helpers' nodeSelectorTerm.match): an empty
 * term, or one with a requirement that does not parse, matches nothing; the only node field is
 * `metadata.name` (any other reads as empty).
 */
export function nodeSelectorTermMatches(term: NodeSelectorTermFields | undefined, node: NodeFields): boolean {
  const exprs = term?.matchExpressions ?? [];
  const fields = term?.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  if (!exprs.every(labelRequirementValid) || !fields.every(fieldRequirementValid)) return false;
  const labels = node.metadata?.labels ?? {};
  if (!exprs.every((r) => labelMatches(r, labels))) return false;
  return fields.every((r) => {
    const value = r.key === 'metadata.name' ? (node.metadata?.name ?? '') : '';
    return (r.operator === 'In') === (value === r.values![0]);
  });
}

/**
 * Whether the pod's `nodeSelector` and required node affinity admit the node (component-helpers'
 * GetRequiredNodeAffinity(pod).Match, parse errors ignored as the DaemonSet controller ignores
 * them): every nodeSelector label equal, and one of the required terms matching.
 */
export function requiredNodeAffinityMatches(
  spec: NodeAffinityPodSpec | undefined,
  node: NodeFields,
): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t) => nodeSelectorTermMatches(t, node));
}

/** The sum of the weights of the preferred node affinity terms the node satisfies (kube-scheduler's NodeAffinity score). */
export function preferredNodeAffinityScore(spec: NodeAffinityPodSpec | undefined, node: NodeFields): number {
  let score = 0;
  for (const p of spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [])
    if (nodeSelectorTermMatches(p?.preference, node)) score += Number(p?.weight ?? 0);
  return score;
}
