import {
  type AdvancedCronJob,
  type AdvancedCronJobSpec,
  type BroadcastJob,
  type ImageListPullJob,
  KruiseResources,
  type ObjectMeta,
  type TemplateKind,
} from '@kruise/api';
import { type Informer, type KubeObject, type ResourceRef, Resources } from '@kruise/runtime';

/** How a run ended: Complete, Failed, or undefined while it runs. */
export type Finished = 'Complete' | 'Failed' | undefined;

/** The part of an AdvancedCronJob controller that differs by template kind. */
export interface CronJobKind {
  kind: TemplateKind;
  resource: ResourceRef;
  /** The runs, as the informer sees them. */
  jobs: Informer<KubeObject>;
  /** The template's metadata and spec. */
  template(spec: AdvancedCronJobSpec): { metadata?: ObjectMeta; spec?: unknown } | undefined;
  finished(job: KubeObject): Finished;
}

const apiVersionOf = (r: ResourceRef) => (r.group ? `${r.group}/${r.version}` : r.version);

/** The `apiVersion` a run of this kind is written with. */
export const jobApiVersion = (kind: CronJobKind): string => apiVersionOf(kind.resource);

/** A finished condition (Complete or Failed, status True) of a Job or a BroadcastJob. */
function byConditions(job: KubeObject): Finished {
  for (const c of (job.status?.conditions ?? []) as { type?: string; status?: string }[])
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  return undefined;
}

/** An ImageListPullJob is finished once it has a completion time: complete when every pull succeeded. */
function byCompletionTime(job: KubeObject): Finished {
  const status = (job as ImageListPullJob).status;
  if (!status?.completionTime) return undefined;
  return (status.succeeded ?? 0) === status.desired ? 'Complete' : 'Failed';
}

/** The three kinds an AdvancedCronJob runs, given the informers of their runs. */
export function cronJobKinds(informers: Record<TemplateKind, Informer<KubeObject>>): CronJobKind[] {
  return [
    {
      kind: 'Job',
      resource: Resources.Job,
      jobs: informers.Job,
      template: (spec) => spec.template?.jobTemplate as { metadata?: ObjectMeta; spec?: unknown } | undefined,
      finished: byConditions,
    },
    {
      kind: 'BroadcastJob',
      resource: KruiseResources.BroadcastJob,
      jobs: informers.BroadcastJob,
      template: (spec) => spec.template?.broadcastJobTemplate,
      finished: (job) => byConditions(job as BroadcastJob & KubeObject),
    },
    {
      kind: 'ImageListPullJob',
      resource: KruiseResources.ImageListPullJob,
      jobs: informers.ImageListPullJob,
      template: (spec) => spec.template?.imageListPullJobTemplate,
      finished: byCompletionTime,
    },
  ];
}

/** Upstream's FindTemplateKind: a Job template first, then an ImageListPullJob's, else a BroadcastJob's. */
export function templateKindOf(acj: AdvancedCronJob): TemplateKind | undefined {
  const template = acj.spec?.template;
  if (template?.jobTemplate) return 'Job';
  if (template?.imageListPullJobTemplate) return 'ImageListPullJob';
  if (template?.broadcastJobTemplate) return 'BroadcastJob';
  return undefined;
}
