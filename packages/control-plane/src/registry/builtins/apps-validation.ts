import { selectorMatches } from '../../admission/matching.ts';
import type { StatusCause } from '../../errors.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import type { KubeObject } from '../types.ts';
import { validatePod } from './core.ts';
import {
  forbiddenField,
  goLabelSelector,
  goStringMap,
  goValue,
  invalidAs,
  nonNegative,
  notSupported,
  requiredWith,
} from './field-errors.ts';
import { labelCauses } from './validation.ts';

/** kube-apiserver's (pkg/apis/apps/validation) checks of StatefulSet, ReplicaSet and ControllerRevision. */

const isEmptySelector = (s: any) =>
  Object.keys(s?.matchLabels ?? {}).length + (s?.matchExpressions ?? []).length === 0;

/** The selector and the pod template every workload shares. */
function selectorAndTemplate(spec: any, emptyDetail: string, owner: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const selector = spec?.selector;
  if (!selector) causes.push(requiredWith('spec.selector', ''));
  else {
    causes.push(...labelCauses(selector.matchLabels, 'spec.selector.matchLabels'));
    if (isEmptySelector(selector))
      causes.push(invalidAs('spec.selector', goLabelSelector(selector), emptyDetail));
  }
  const template = spec?.template;
  if (!template) return [...causes, requiredWith('spec.template', '')];
  const labels = template.metadata?.labels;
  if (selector && !isEmptySelector(selector) && !selectorMatches(selector, labels)) {
    causes.push(
      invalidAs(
        'spec.template.metadata.labels',
        goStringMap(labels),
        '`selector` does not match template `labels`',
      ),
    );
  }
  causes.push(...labelCauses(labels, 'spec.template.labels'));
  for (const c of validatePod({ spec: template.spec ?? {} }))
    causes.push({ ...c, field: c.field?.replace(/^spec\./, 'spec.template.spec.') });
  const restart = template.spec?.restartPolicy;
  if (restart !== 'Always')
    causes.push(notSupported('spec.template.spec.restartPolicy', restart, ['Always']));
  const deadline = template.spec?.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) {
    const detail =
      owner === 'StatefulSet'
        ? 'must not be specified'
        : `activeDeadlineSeconds in ${owner} is not Supported`;
    causes.push(invalidAs('spec.template.spec.activeDeadlineSeconds', goValue(deadline), detail));
  }
  return causes;
}

function statusCounts(status: any, counted: string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of ['replicas', ...counted, 'observedGeneration', 'collisionCount'])
    causes.push(...nonNegative(`status.${f}`, status?.[f]));
  const replicas = status?.replicas ?? 0;
  for (const f of counted) {
    if ((status?.[f] ?? 0) > replicas)
      causes.push(invalidAs(`status.${f}`, String(status[f]), 'cannot be greater than status.replicas'));
  }
  return causes;
}

const UPDATABLE_STATEFULSET_FIELDS = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];

/** ValidateStatefulSet / ValidateStatefulSetUpdate. */
export function validateStatefulSet(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = obj.spec ?? {};
  const causes: StatusCause[] = [];
  const policy = spec.podManagementPolicy;
  if (!policy) causes.push(requiredWith('spec.podManagementPolicy', ''));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel')
    causes.push(
      invalidAs('spec.podManagementPolicy', goValue(policy), "must be 'OrderedReady' or 'Parallel'"),
    );
  const strategy = spec.updateStrategy ?? {};
  if (!strategy.type) causes.push(requiredWith('spec.updateStrategy', ''));
  else if (strategy.type === 'OnDelete') {
    if (strategy.rollingUpdate)
      causes.push(
        invalidAs(
          'spec.updateStrategy.rollingUpdate',
          goValue(strategy.rollingUpdate, 'apps.RollingUpdateStatefulSetStrategy'),
          "only allowed for updateStrategy 'RollingUpdate'",
        ),
      );
  } else if (strategy.type === 'RollingUpdate')
    causes.push(
      ...nonNegative('spec.updateStrategy.rollingUpdate.partition', strategy.rollingUpdate?.partition),
    );
  else
    causes.push(
      invalidAs(
        'spec.updateStrategy',
        goValue(strategy, 'apps.StatefulSetUpdateStrategy'),
        "must be 'RollingUpdate' or 'OnDelete'",
      ),
    );
  causes.push(...nonNegative('spec.replicas', spec.replicas));
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  causes.push(...selectorAndTemplate(spec, 'empty selector is not valid for statefulset.', 'StatefulSet'));
  causes.push(
    ...statusCounts(obj.status, ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']),
  );
  if (old) {
    const strip = (s: any) => {
      const rest = { ...s };
      for (const f of UPDATABLE_STATEFULSET_FIELDS) delete rest[f];
      return rest;
    };
    if (!deepEqual(strip(spec), strip(old.spec ?? {})))
      causes.push(
        forbiddenField(
          'spec',
          `updates to statefulset spec for fields other than ${UPDATABLE_STATEFULSET_FIELDS.slice(0, -1)
            .map((f) => `'${f}'`)
            .join(', ')} and 'minReadySeconds' are forbidden`,
        ),
      );
    if ((obj.status?.collisionCount ?? 0) < (old.status?.collisionCount ?? 0))
      causes.push(
        invalidAs('status.collisionCount', String(obj.status?.collisionCount ?? 0), 'cannot be decremented'),
      );
  }
  return causes;
}

/** ValidateReplicaSet / ValidateReplicaSetUpdate (apps/v1: the selector is immutable). */
export function validateReplicaSet(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = obj.spec ?? {};
  const causes: StatusCause[] = [];
  causes.push(...nonNegative('spec.replicas', spec.replicas));
  causes.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  causes.push(...selectorAndTemplate(spec, 'empty selector is invalid for deployment', 'ReplicaSet'));
  causes.push(...statusCounts(obj.status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']));
  if (old && !deepEqual(spec.selector, old.spec?.selector))
    causes.push(invalidAs('spec.selector', goLabelSelector(spec.selector), 'field is immutable'));
  return causes;
}

/** ValidateControllerRevision / ValidateControllerRevisionUpdate. */
export function validateControllerRevision(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  if (obj.data === undefined || obj.data === null) causes.push(requiredWith('data', 'data is mandatory'));
  causes.push(...nonNegative('revision', obj.revision));
  if (old && !deepEqual(obj.data, old.data))
    causes.push(invalidAs('data', goValue(obj.data, 'runtime.RawExtension'), 'field is immutable'));
  return causes;
}
