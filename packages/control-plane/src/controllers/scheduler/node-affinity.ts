import type { KubeObject } from '../../registry/types.ts';

/** One NodeSelectorRequirement against a value (a label, or a field such as metadata.name). */
function requirementMatches(req: any, value: string | undefined): boolean {
  const values: string[] = (req?.values ?? []).map(String);
  switch (req?.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1) return false;
      const have = Number.parseInt(value, 10);
      const want = Number.parseInt(values[0]!, 10);
      if (Number.isNaN(have) || Number.isNaN(want)) return false;
      return req.operator === 'Gt' ? have > want : have < want;
    }
    default:
      return false;
  }
}

/** A NodeSelectorTerm: its expressions (labels) and fields (metadata.name) all hold; an empty term matches nothing. */
export function termMatches(term: any, node: KubeObject): boolean {
  const exprs: any[] = term?.matchExpressions ?? [];
  const fields: any[] = term?.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels: Record<string, string> = node.metadata?.labels ?? {};
  for (const e of exprs)
    if (!requirementMatches(e, Object.hasOwn(labels, e?.key) ? labels[e.key] : undefined)) return false;
  for (const f of fields) {
    const value = f?.key === 'metadata.name' ? node.metadata?.name : undefined;
    if (!requirementMatches(f, value)) return false;
  }
  return true;
}

/** Whether the pod's nodeSelector and required node affinity admit the node. */
export function nodeAffinityMatches(pod: KubeObject, node: KubeObject): boolean {
  const labels: Record<string, string> = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((t: any) => termMatches(t, node));
}

/** The sum of the weights of the preferred node affinity terms the node satisfies. */
export function preferredAffinityScore(pod: KubeObject, node: KubeObject): number {
  let score = 0;
  for (const p of pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [])
    if (termMatches(p?.preference, node)) score += Number(p?.weight ?? 0);
  return score;
}
