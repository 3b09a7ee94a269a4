import {
  BROADCASTJOB_CONTROLLER_UID_LABEL,
  BROADCASTJOB_NAME_LABEL,
  type BroadcastJob,
  type BroadcastJobSpec,
} from '@kruise/api';
import { type AdmissionHandler, allowed, denied } from '@kruise/runtime';
import { aggregate, type FieldError, goStringMap, invalid } from '../field-errors.ts';
import { dashedNameErrors, objectMetaErrors } from '../object-meta-validation.ts';
import { podTemplateErrors } from '../pod-template-validation.ts';
import { decodeBroadcastJob } from './versions.ts';

/** Upstream's validateBroadcastJobName: letters, digits and '-', at most 63 characters. */
const broadcastJobNameErrors = dashedNameErrors('BroadcastJob name');

/** Upstream's validateBroadcastJobSpec, in its order. */
function specErrors(spec: BroadcastJobSpec): FieldError[] {
  const out: FieldError[] = [];
  const policy = spec.completionPolicy ?? {};
  if (policy.type === 'Never') {
    if (policy.ttlSecondsAfterFinished !== undefined && policy.ttlSecondsAfterFinished !== null)
      out.push(
        invalid(
          'spec.completionPolicy.ttlSecondsAfterFinished',
          policy.ttlSecondsAfterFinished,
          'ttlSecondsAfterFinished can just work with Always CompletionPolicyType',
        ),
      );
    if (policy.activeDeadlineSeconds !== undefined && policy.activeDeadlineSeconds !== null)
      out.push(
        invalid(
          'spec.completionPolicy.activeDeadlineSeconds',
          policy.activeDeadlineSeconds,
          'activeDeadlineSeconds can just work with Always CompletionPolicyType',
        ),
      );
  }
  const restartPolicy = spec.template?.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never')
    out.push(
      invalid(
        'spec.template.spec.restartPolicy',
        restartPolicy,
        'pod restartPolicy can only be Never or OnFailure',
      ),
    );
  const labels = spec.template?.metadata?.labels;
  if (labels?.[BROADCASTJOB_NAME_LABEL] || labels?.[BROADCASTJOB_CONTROLLER_UID_LABEL])
    out.push(
      invalid(
        'spec.template.metadata.labels',
        goStringMap(labels),
        `"${BROADCASTJOB_NAME_LABEL}" and "${BROADCASTJOB_CONTROLLER_UID_LABEL}" are not allowed to preset in pod labels`,
      ),
    );
  out.push(...podTemplateErrors(spec.template, 'spec.template'));
  return out;
}

/** Every error of a BroadcastJob, as upstream's validateBroadcastJob lists them. */
export function broadcastJobErrors(job: BroadcastJob): FieldError[] {
  return [
    ...objectMetaErrors(job.metadata, broadcastJobNameErrors),
    ...specErrors(job.spec ?? ({} as BroadcastJobSpec)),
  ];
}

/**
 * BroadcastJob's validating webhook (`vbroadcastjob.kb.io`, CREATE and UPDATE at both versions):
 * upstream's checks, every error aggregated and answered 500 as upstream's handler answers a
 * validation error (`admission.Errored(http.StatusInternalServerError, …)`); a body that cannot be
 * decoded is answered 400.
 */
export const validateBroadcastJob: AdmissionHandler = (request) => {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const decoded = decodeBroadcastJob(request, 'object');
  if ('response' in decoded) return decoded.response;
  const errors = broadcastJobErrors(decoded.obj);
  return errors.length ? denied(500, aggregate(errors)) : allowed();
};
