import { type AdvancedCronJob, setPodSpecDefaults } from '@kruise/api';
import type { PodSpec } from 'kubernetes-types/core/v1.js';

const podSpecOf = (template: { spec?: { template?: { spec?: PodSpec } } } | undefined) => {
  const podTemplate = template?.spec?.template;
  if (!podTemplate) return undefined;
  podTemplate.spec ??= {} as PodSpec;
  return podTemplate.spec;
};

/**
 * Upstream's SetDefaultsAdvancedCronJob, in its order: with `injectTemplateDefaults` the pod
 * defaults of a Job or BroadcastJob template; an ImageListPullJob template without a completion
 * type gets type Always, pull timeout 600 s, backoff limit 3 and imagePullPolicy IfNotPresent;
 * concurrencyPolicy Replace for an ImageListPullJob template, Allow otherwise; paused false;
 * history limits 3 successful and 1 failed. Mutates `acj`.
 */
export function setAdvancedCronJobDefaults(
  acj: AdvancedCronJob,
  injectTemplateDefaults: boolean,
): AdvancedCronJob {
  acj.spec ??= {} as NonNullable<AdvancedCronJob['spec']>;
  const spec = acj.spec;
  spec.template ??= {};
  const template = spec.template;
  if (injectTemplateDefaults) {
    for (const jobTemplate of [template.jobTemplate, template.broadcastJobTemplate]) {
      const podSpec = podSpecOf(jobTemplate as Parameters<typeof podSpecOf>[0]);
      if (podSpec) setPodSpecDefaults(podSpec);
    }
  }
  const pull = template.imageListPullJobTemplate;
  if (pull) {
    pull.spec ??= { images: [], completionPolicy: {} };
    pull.spec.completionPolicy ??= {};
    if (!pull.spec.completionPolicy.type) {
      pull.spec.completionPolicy.type = 'Always';
      pull.spec.pullPolicy ??= {};
      pull.spec.pullPolicy.timeoutSeconds ??= 600;
      pull.spec.pullPolicy.backoffLimit ??= 3;
      pull.spec.imagePullPolicy ||= 'IfNotPresent';
    }
  }
  spec.concurrencyPolicy ||= pull ? 'Replace' : 'Allow';
  spec.paused ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  return acj;
}
