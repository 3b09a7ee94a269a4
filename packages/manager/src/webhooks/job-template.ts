import type { ImagePullJobTemplate } from '@kruise/api';
import { labelSelectorError, parallelismError } from './validation.ts';

/** The selector checks ImagePullJob and ImageListPullJob share; returns upstream's message, or undefined. */
export function selectorError(spec: ImagePullJobTemplate): string | undefined {
  const selector = spec.selector;
  if (selector) {
    if (selector.matchLabels || selector.matchExpressions) {
      if (selector.names) return 'can not set both names and labelSelector in this spec.selector';
      const err = labelSelectorError(selector);
      if (err) return `invalid selector: ${err}`;
    }
    if (selector.names && new Set(selector.names).size !== selector.names.length)
      return 'duplicated name in selector names';
  }
  if (spec.podSelector) {
    if (selector) return 'can not set both selector and podSelector';
    const err = labelSelectorError(spec.podSelector);
    if (err) return `invalid podSelector: ${err}`;
  }
  return undefined;
}

/**
 * Parallelism and completion-policy checks (after the image checks, as upstream orders them);
 * `deadlineCheck` adds the Always deadline-versus-timeout rule that only ImagePullJob has.
 */
export function policyError(spec: ImagePullJobTemplate, deadlineCheck: boolean): string | undefined {
  const parallelism = parallelismError(spec.parallelism);
  if (parallelism) return parallelism;
  const timeout = spec.pullPolicy?.timeoutSeconds ?? 600;
  const completion = spec.completionPolicy ?? {};
  switch (completion.type) {
    case 'Always':
      if (
        deadlineCheck &&
        completion.activeDeadlineSeconds !== undefined &&
        completion.activeDeadlineSeconds !== null &&
        timeout > completion.activeDeadlineSeconds
      ) {
        return 'completionPolicy.activeDeadlineSeconds must be greater than pullPolicy.timeoutSeconds(default 600)';
      }
      return undefined;
    case 'Never':
      if (
        (completion.activeDeadlineSeconds ?? null) !== null ||
        (completion.ttlSecondsAfterFinished ?? null) !== null
      ) {
        return 'activeDeadlineSeconds and ttlSecondsAfterFinished can only work with Always CompletionPolicyType';
      }
      return undefined;
    default:
      return `unknown type of completionPolicy: ${completion.type ?? ''}`;
  }
}
