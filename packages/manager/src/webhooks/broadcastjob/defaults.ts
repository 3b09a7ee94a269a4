import { type BroadcastJob, type BroadcastJobSpec, setPodSpecDefaults } from '@kruise/api';
import type { PodSpec } from 'kubernetes-types/core/v1.js';

/** What an unset `spec.parallelism` becomes: no limit (MaxInt32). */
export const UNLIMITED_PARALLELISM = 2 ** 31 - 1;

/**
 * Upstream's SetDefaultsBroadcastJob: with `injectTemplateDefaults` the Kubernetes pod-template
 * defaults; completionPolicy.type Always; parallelism MaxInt32; failurePolicy.type FailFast.
 * Mutates `job`.
 */
export function setBroadcastJobDefaults(job: BroadcastJob, injectTemplateDefaults: boolean): BroadcastJob {
  job.spec ??= {} as BroadcastJobSpec;
  const spec = job.spec;
  if (injectTemplateDefaults) {
    spec.template ??= {};
    spec.template.spec ??= {} as PodSpec;
    setPodSpecDefaults(spec.template.spec);
  }
  spec.completionPolicy ??= {};
  spec.completionPolicy.type ||= 'Always';
  spec.parallelism ??= UNLIMITED_PARALLELISM;
  spec.failurePolicy ??= {};
  spec.failurePolicy.type ||= 'FailFast';
  return job;
}
