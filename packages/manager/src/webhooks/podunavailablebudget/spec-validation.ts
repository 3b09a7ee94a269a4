import { isDeepStrictEqual } from 'node:util';
import {
  PUB_OPERATIONS,
  PUB_PROTECT_OPERATIONS_ANNOTATION,
  PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION,
} from '@kruise/api';
import { goParseInt32, parseGroupVersion } from '@kruise/kube-compat';
import { type FieldError, internalError, invalid, required } from '../field-errors.ts';
import { notMoreThan100PercentErrors, positiveIntOrPercentErrors } from '../int-or-percent.ts';
import { podSelectorErrors } from '../validation.ts';
import { type GoTargetReference, goTargetReference, type PubView } from './go-view.ts';

/**
 * Upstream's checks of one PodUnavailableBudget (validatingPodUnavailableBudgetFn before the
 * conflicts with others), with its field paths and words — `spec.TargetReference` capitalised as
 * upstream writes it.
 */

const OPERATIONS = new Set<string>(PUB_OPERATIONS);
const PICK = 'spec.selector, targetRef';
const BUDGET = 'spec.maxUnavailable, minAvailable';

const annotationInvalid = (key: string) => internalError('metadata', `annotation[${key}] is invalid`);

/** The protected operations must each be UPDATE, DELETE, EVICT or RESIZE; the total replicas an int32. */
export function pubAnnotationErrors(pub: PubView): FieldError[] {
  const out: FieldError[] = [];
  const operations = pub.annotations.get(PUB_PROTECT_OPERATIONS_ANNOTATION);
  if (operations !== undefined)
    for (const operation of operations.split(','))
      if (!OPERATIONS.has(operation)) out.push(annotationInvalid(PUB_PROTECT_OPERATIONS_ANNOTATION));
  const replicas = pub.annotations.get(PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION);
  if (replicas !== undefined) {
    try {
      goParseInt32(replicas);
    } catch {
      out.push(annotationInvalid(PUB_PROTECT_TOTAL_REPLICAS_ANNOTATION));
    }
  }
  return out;
}

function targetRefErrors(ref: GoTargetReference): FieldError[] {
  const field = 'spec.TargetReference';
  const out: FieldError[] = [];
  if (!ref.apiVersion || !ref.name || !ref.kind)
    out.push(
      invalid(field, goTargetReference(ref), 'empty TargetReference is not valid for PodUnavailableBudget.'),
    );
  try {
    parseGroupVersion(ref.apiVersion);
  } catch (err) {
    out.push(invalid(field, goTargetReference(ref), (err as Error).message));
  }
  return out;
}

function pickErrors(pub: PubView): FieldError[] {
  const { selector, targetRef } = pub;
  if (!selector && !targetRef)
    return [required(PICK, 'no selector or targetRef defined in PodUnavailableBudget')];
  if (selector && targetRef) return [required(PICK, 'selector and targetRef are mutually exclusive')];
  if (targetRef) return targetRefErrors(targetRef);
  return podSelectorErrors(
    selector,
    'spec.selector',
    'empty selector is not valid for PodUnavailableBudget.',
  );
}

function budgetErrors(pub: PubView): FieldError[] {
  const { maxUnavailable, minAvailable } = pub;
  if (maxUnavailable === undefined && minAvailable === undefined)
    return [required(BUDGET, 'no maxUnavailable or minAvailable defined in PodUnavailableBudget')];
  if (maxUnavailable !== undefined && minAvailable !== undefined)
    return [required(BUDGET, 'maxUnavailable and minAvailable are mutually exclusive')];
  const [value, field] =
    maxUnavailable !== undefined
      ? [maxUnavailable, 'spec.maxUnavailable']
      : [minAvailable!, 'spec.minAvailable'];
  return [...positiveIntOrPercentErrors(value, field), ...notMoreThan100PercentErrors(value, field)];
}

/** The spec: a selector or a targetRef (not both, neither empty), a maxUnavailable or a minAvailable (not both). */
export function pubSpecErrors(pub: PubView): FieldError[] {
  return [...pickErrors(pub), ...budgetErrors(pub)];
}

/** On update, the pods a budget picks may not change: selector and targetRef as they were (Go's DeepEqual). */
export function pubTargetChangeErrors(pub: PubView, old: PubView): FieldError[] {
  if (isDeepStrictEqual(pub.selector, old.selector) && isDeepStrictEqual(pub.targetRef, old.targetRef))
    return [];
  return [required(PICK, 'selector and targetRef cannot be modified')];
}
