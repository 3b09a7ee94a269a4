import { parseGroupVersion } from '@kruise/kube-compat';
import { type FieldError, goLabelSelector, invalid } from '../field-errors.ts';
import { selectorsLooselyOverlap } from '../selector-overlap.ts';
import { type GoTargetReference, goTargetReference, type PubView } from './go-view.ts';

/**
 * Upstream's validatePubConflict: a pod may be covered by one budget only, so a budget may not name
 * the workload another of its namespace names (same group, kind and name; the version does not
 * count), nor pick pods with a selector that loosely overlaps another's. The first conflict found
 * is the one reported.
 */

/** The group of an apiVersion; `''` where it does not parse (already refused by the spec checks). */
function groupOf(apiVersion: string): string {
  try {
    return parseGroupVersion(apiVersion).group;
  } catch {
    return '';
  }
}

const sameWorkload = (a: GoTargetReference, b: GoTargetReference) =>
  groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;

/** The conflict of `pub` with the first of `others` (the namespace's budgets, which may include it) it clashes with. */
export function pubConflictErrors(pub: PubView, others: PubView[]): FieldError[] {
  const inConflict = (what: string, other: PubView) =>
    `pub.spec.${what} is in conflict with other PodUnavailableBudget ${other.name}`;
  for (const other of others) {
    if (other.name === pub.name) continue;
    if (pub.targetRef && other.targetRef) {
      if (sameWorkload(pub.targetRef, other.targetRef))
        return [
          invalid(
            'spec.targetReference',
            goTargetReference(pub.targetRef),
            inConflict('targetReference', other),
          ),
        ];
    } else if (pub.selector && other.selector && selectorsLooselyOverlap(pub.selector, other.selector))
      return [invalid('spec.selector', goLabelSelector(pub.selector), inConflict('selector', other))];
  }
  return [];
}
