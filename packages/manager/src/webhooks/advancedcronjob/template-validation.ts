import type { ImageListPullJobTemplateSpec } from '@kruise/api';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import {
  type FieldError,
  GO_ADDRESS,
  type GoValue,
  goLabelSelector,
  goStringSlice,
  goStruct,
  invalid,
} from '../field-errors.ts';
import { selectorError } from '../job-template.ts';
import { imageError } from '../validation.ts';

/** Longest activeDeadlineSeconds an ImageListPullJob template may have: one day. */
export const MAX_ACTIVE_DEADLINE_SECONDS = 3600 * 24;

/** Most images an ImageListPullJob template may list. */
const MAX_IMAGES = 255;

type PullSpec = NonNullable<ImageListPullJobTemplateSpec['spec']>;

/** A nil-or-set pointer field as `%#v` prints it inside a struct. */
const pointer = (type: string, value: unknown) => `(${type})(${value == null ? 'nil' : GO_ADDRESS})`;

/** The node selector as `%#v` prints the struct (the value upstream's selector errors show). */
function goNodeSelector(selector: NonNullable<PullSpec['selector']>): GoValue {
  return goStruct('v1beta1.ImagePullJobNodeSelector', [
    ['Names', goStringSlice(selector.names).text],
    ['LabelSelector', goLabelSelector(selector).text],
  ]);
}

/** The spec as `%#v` prints it (the value of upstream's "selector and podSelector" error). */
function goPullSpec(spec: PullSpec): GoValue {
  const completion = spec.completionPolicy ?? {};
  return goStruct('v1beta1.ImageListPullJobSpec', [
    ['Images', goStringSlice(spec.images).text],
    [
      'ImagePullJobTemplate',
      goStruct('v1beta1.ImagePullJobTemplate', [
        ['PullSecrets', goStringSlice(spec.pullSecrets).text],
        ['Selector', pointer('*v1beta1.ImagePullJobNodeSelector', spec.selector)],
        ['PodSelector', pointer('*v1beta1.ImagePullJobPodSelector', spec.podSelector)],
        ['Parallelism', pointer('*intstr.IntOrString', spec.parallelism)],
        ['PullPolicy', pointer('*v1beta1.PullPolicy', spec.pullPolicy)],
        [
          'CompletionPolicy',
          goStruct('v1beta1.CompletionPolicy', [
            ['Type', JSON.stringify(completion.type ?? '')],
            ['ActiveDeadlineSeconds', pointer('*int64', completion.activeDeadlineSeconds)],
            ['TTLSecondsAfterFinished', pointer('*int32', completion.ttlSecondsAfterFinished)],
          ]).text,
        ],
        ['SandboxConfig', pointer('*v1beta1.SandboxConfig', spec.sandboxConfig)],
        ['ImagePullPolicy', JSON.stringify(spec.imagePullPolicy ?? '')],
      ]).text,
    ],
  ]);
}

/**
 * Upstream's validateImageListPullJobTemplateSpec: the first problem of the template at `field`
 * (`spec.template.imageListPullJobTemplate`): selectors, images, then the completion policy, which
 * must be Always with no ttlSecondsAfterFinished and a deadline of at most a day, longer than the
 * pull timeout.
 */
export function imageListPullJobTemplateErrors(
  template: ImageListPullJobTemplateSpec,
  field: string,
): FieldError[] {
  const spec = template.spec ?? ({ images: [], completionPolicy: {} } as PullSpec);
  const at = (f: string) => `${field}.spec.${f}`;
  const selectorProblem = selectorError(spec);
  if (selectorProblem) {
    if (selectorProblem.startsWith('can not set both names'))
      return [invalid(at('selector'), goNodeSelector(spec.selector!), selectorProblem)];
    if (selectorProblem === 'duplicated name in selector names')
      return [invalid(at('selector.names'), goStringSlice(spec.selector?.names), selectorProblem)];
    if (selectorProblem === 'can not set both selector and podSelector')
      return [invalid(`${field}.spec`, goPullSpec(spec), selectorProblem)];
    const podSelector = selectorProblem.startsWith('invalid podSelector');
    const message = podSelector
      ? selectorProblem.replace('invalid podSelector', 'invalid selector')
      : selectorProblem;
    const selector = podSelector ? spec.podSelector : spec.selector;
    return [
      invalid(
        at(`${podSelector ? 'podSelector' : 'selector'}.labelSelector`),
        goLabelSelector(selector),
        message,
      ),
    ];
  }
  const images = spec.images ?? [];
  const imagesValue = goStringSlice(spec.images);
  if (images.length === 0) return [invalid(at('images'), imagesValue, 'image can not be empty')];
  if (images.length > MAX_IMAGES)
    return [invalid(at('images'), imagesValue, `the maximum number of images cannot > ${MAX_IMAGES}`)];
  if (new Set(images).size !== images.length)
    return [invalid(at('images'), imagesValue, 'images cannot have duplicate values')];
  for (const image of images) {
    const problem = imageError(image);
    if (problem) return [invalid(at('images'), imagesValue, problem)];
  }
  const completion = spec.completionPolicy ?? {};
  if (completion.type !== 'Always')
    return [
      invalid(
        at('completionPolicy.type'),
        completion.type ?? '',
        `completionPolicy should be Always, but current value is: ${completion.type ?? ''}`,
      ),
    ];
  const deadline = completion.activeDeadlineSeconds;
  if (deadline != null && deadline > MAX_ACTIVE_DEADLINE_SECONDS)
    return [
      invalid(
        at('completionPolicy.activeDeadlineSeconds'),
        deadline,
        `activeDeadlineSeconds must be less than ${MAX_ACTIVE_DEADLINE_SECONDS}, current value is: ${deadline}`,
      ),
    ];
  const timeout = spec.pullPolicy?.timeoutSeconds;
  if (deadline != null && timeout != null && timeout > deadline)
    return [
      invalid(
        at('completionPolicy.activeDeadlineSeconds'),
        deadline,
        `completionPolicy.activeDeadlineSeconds must be greater than pullPolicy.timeoutSeconds(${timeout})`,
      ),
    ];
  if (completion.ttlSecondsAfterFinished != null)
    return [
      invalid(
        at('completionPolicy.ttlSecondsAfterFinished'),
        completion.ttlSecondsAfterFinished,
        'ttlSecondsAfterFinished is not supported in advancedCronJob',
      ),
    ];
  return [];
}

/** The pod template of a Job or BroadcastJob template, as a core PodTemplateSpec to validate. */
export const podTemplateOf = (template: { spec?: { template?: unknown } } | undefined): PodTemplateSpec =>
  (template?.spec?.template ?? {}) as PodTemplateSpec;
