import { labelSelectorString } from '@kruise/kube-compat/label-selector';
import type { KubeObject } from '@kruise/runtime/kube/client';
import { Resources } from '@kruise/runtime/kube/resources';
import type { CommandContext } from './command.ts';
import type { Target } from './targets.ts';
import type { PodTemplate } from './template-patch.ts';

/** A workload and its ControllerRevisions, oldest first. */
export interface WorkloadHistory {
  object: KubeObject;
  revisions: KubeObject[];
}

/**
 * Reads a workload and the ControllerRevisions it controls (those its selector matches whose
 * controller owner reference is the workload), sorted by revision number.
 */
export async function historyOf(ctx: CommandContext, target: Target): Promise<WorkloadHistory> {
  const object = await ctx.client().get(target.kind.resource, target.namespace, target.name);
  const list = await ctx.client().listAll(Resources.ControllerRevision, {
    namespace: target.namespace,
    labelSelector: labelSelectorString(object.spec?.selector),
  });
  const uid = object.metadata?.uid;
  const revisions = list.items
    .filter((r) =>
      (r.metadata?.ownerReferences ?? []).some(
        (o: { uid?: string; controller?: boolean }) => o.controller && o.uid === uid,
      ),
    )
    .sort((a, b) => Number(a.revision ?? 0) - Number(b.revision ?? 0));
  return { object, revisions };
}

/** The pod template a revision stores (`{"spec":{"template":{"$patch":"replace",…}}}`). */
export function revisionTemplate(revision: KubeObject): PodTemplate {
  const { $patch: _, ...template } = (revision.data?.spec?.template ?? {}) as Record<string, any>;
  return template as PodTemplate;
}

/** JSON without nulls, empty objects and empty lists, keys sorted: for comparing templates. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = canonical((value as Record<string, unknown>)[key]);
      if (v === null || v === undefined) continue;
      if (typeof v === 'object' && Object.keys(v as object).length === 0) continue;
      out[key] = v;
    }
    return out;
  }
  return value;
}

/** Whether two pod templates are the same once empty fields are ignored. */
export const sameTemplate = (a: PodTemplate, b: PodTemplate) =>
  JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
