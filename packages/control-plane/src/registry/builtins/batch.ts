import { selectorMatchesToString } from '../../admission/matching.ts';
import type { StatusCause } from '../../errors.ts';
import { AGE_COLUMN, column, humanDuration, wideColumn } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { defaultTemplate, TEMPLATE_COLUMNS } from './workload-sets.ts';

/** The labels kube-apiserver puts on a Job's pod template, legacy names first (batch/v1 constants). */
const JOB_NAME_LABELS = ['job-name', 'batch.kubernetes.io/job-name'];
const CONTROLLER_UID_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];
/** The label a generated Job selector matches. */
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';

/** SetDefaults_Job (batch/v1, Kubernetes 1.33): parallelism, completions, backoffLimit, modes. */
function defaultJobSpec(job: KubeObject): void {
  job.spec ??= {};
  const spec = job.spec;
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? 2147483647 : 6;
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels && !Object.keys(job.metadata?.labels ?? {}).length)
    job.metadata = { ...job.metadata, labels: { ...templateLabels } };
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  for (const rule of spec.podFailurePolicy?.rules ?? [])
    for (const pattern of rule?.onPodConditions ?? []) if (pattern) pattern.status ??= 'True';
  defaultTemplate(job);
}

/**
 * The Job strategy's PrepareForCreate: an empty status and, unless `manualSelector`, the generated
 * selector on `batch.kubernetes.io/controller-uid` with the job-name and controller-uid labels
 * (legacy and prefixed) added to the pod template where the user did not set them.
 */
function generateSelector(job: KubeObject): void {
  job.status = {};
  const spec = job.spec;
  if (spec.manualSelector === true) return;
  spec.template ??= {};
  spec.template.metadata ??= {};
  spec.template.metadata.labels ??= {};
  const labels = spec.template.metadata.labels;
  for (const key of JOB_NAME_LABELS) labels[key] ??= job.metadata?.name ?? '';
  for (const key of CONTROLLER_UID_LABELS) labels[key] ??= job.metadata?.uid ?? '';
  spec.selector ??= {};
  spec.selector.matchLabels ??= {};
  spec.selector.matchLabels[CONTROLLER_UID_LABEL] ??= job.metadata?.uid ?? '';
}

/** ValidateJob's checks a Job's template must pass here: OnFailure or Never, a selector. */
function validateJob(job: KubeObject, _old: KubeObject | undefined, subresource: string): StatusCause[] {
  if (subresource === 'status') return [];
  const causes: StatusCause[] = [];
  const policy = job.spec?.template?.spec?.restartPolicy;
  if (policy !== 'OnFailure' && policy !== 'Never')
    causes.push({
      reason: 'FieldValueRequired',
      field: 'spec.template.spec.restartPolicy',
      message: 'Required value: valid values: "OnFailure", "Never"',
    });
  if (!job.spec?.selector)
    causes.push({ reason: 'FieldValueRequired', field: 'spec.selector', message: 'Required value' });
  return causes;
}

const hasCondition = (job: KubeObject, type: string): boolean =>
  (job.status?.conditions ?? []).some((c: any) => c?.type === type && c?.status === 'True');

/** The STATUS column as kube-apiserver's printer words it (Kubernetes 1.33). */
function jobStatus(job: KubeObject): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(job, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** COMPLETIONS: `succeeded/completions`, or `succeeded/1 of parallelism` for a work queue. */
function jobCompletions(job: KubeObject): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions != null) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** DURATION: from start to completion, or to now while running; empty before the start. */
function jobDuration(job: KubeObject, now: number): string {
  const start = Date.parse(job.status?.startTime ?? '');
  if (Number.isNaN(start)) return '';
  const end = Date.parse(job.status?.completionTime ?? '');
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

/**
 * `batch/v1` Job, stored with its `status` subresource; the control plane's Job controller
 * (controllers/job) runs its pods and writes its status.
 */
export const BATCH_RESOURCES: ResourceType[] = [
  builtin({
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    namespaced: true,
    categories: ['all'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [
      column('Status', jobStatus),
      column('Completions', jobCompletions),
      column('Duration', jobDuration),
      AGE_COLUMN,
      ...TEMPLATE_COLUMNS,
      wideColumn('Selector', (o) => (o.spec?.selector ? selectorMatchesToString(o.spec.selector) : '')),
    ],
    defaults: (o) => {
      defaultJobSpec(o);
      generateSelector(o);
    },
    validate: validateJob,
  }),
];
