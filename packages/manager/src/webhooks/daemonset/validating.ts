import { type AdmissionHandler, allowed, denied } from '@kruise/runtime';
import { aggregate, type FieldError, forbidden } from '../field-errors.ts';
import { objectMetaUpdateErrors } from '../object-meta-validation.ts';
import { specChangedBeyond } from '../spec-update.ts';
import { daemonSetErrors, daemonSetSpecErrors } from './spec-validation.ts';
import { decodeDaemonSet, requestVersion } from './versions.ts';

/** The spec fields an update may change, and upstream's refusal of the others, per version. */
const SHARED_MUTABLE = [
  'template',
  'updateStrategy',
  'lifecycle',
  'burstReplicas',
  'minReadySeconds',
  'revisionHistoryLimit',
];
const MUTABLE = {
  v1beta1: {
    fields: [...SHARED_MUTABLE, 'scaleStrategy'],
    struct: 'DaemonSetSpec',
    refusal:
      "updates to daemonset spec for fields other than 'BurstReplicas', 'template', 'lifecycle', 'scaleStrategy', 'updateStrategy', 'minReadySeconds', and 'revisionHistoryLimit' are forbidden",
  },
  v1alpha1: {
    fields: SHARED_MUTABLE,
    struct: 'DaemonSetSpecV1alpha1',
    // (upstream's v1alpha1 words, with their double space)
    refusal:
      "updates to daemonset spec for fields other than 'BurstReplicas', 'template', 'lifecycle',  'updateStrategy', 'minReadySeconds', and 'revisionHistoryLimit' are forbidden",
  },
};

/**
 * Advanced DaemonSet's validating webhook (`vdaemonset.kb.io`, both versions), as upstream answers:
 * a refused CREATE is an internal error (500) carrying every error of the object; a refused UPDATE
 * is 422 with the metadata update rules, the fields that may not change, and the spec's errors.
 */
export const validateDaemonSet: AdmissionHandler = (request) => {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allowed();
  const version = requestVersion(request);
  const decoded = decodeDaemonSet(request, 'object');
  if ('response' in decoded) return decoded.response;
  const ds = decoded.obj;
  if (request.operation === 'CREATE') {
    const errors = daemonSetErrors(ds, version);
    return errors.length ? denied(500, aggregate(errors)) : allowed();
  }
  const old = decodeDaemonSet(request, 'oldObject');
  if ('response' in old) return old.response;
  const rules = MUTABLE[version];
  const errors: FieldError[] = objectMetaUpdateErrors(ds.metadata, old.obj.metadata);
  if (specChangedBeyond(ds.spec, old.obj.spec, rules.fields, rules.struct))
    errors.push(forbidden('spec', rules.refusal));
  errors.push(...daemonSetSpecErrors(ds.spec ?? ({} as NonNullable<typeof ds.spec>), version));
  return errors.length ? denied(422, aggregate(errors)) : allowed();
};
