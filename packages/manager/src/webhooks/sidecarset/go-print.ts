import type { SidecarSetInjectionStrategy, SidecarSetUpdateStrategy } from '@kruise/api';
import type { LabelSelectorFields } from '@kruise/kube-compat';
import { GO_ADDRESS, type GoValue, goPointer, goString, goStruct } from '../field-errors.ts';

/** How Go prints the few SidecarSet values upstream's denials show. */

/** A LabelSelector as its generated String() writes it (`&LabelSelector{MatchLabels:…,}`). */
function labelSelectorText(s: LabelSelectorFields): string {
  const labels = Object.keys(s.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${s.matchLabels![k]},`)
    .join('');
  const exprs = (s.matchExpressions ?? [])
    .map(
      (e) =>
        `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`,
    )
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

const intOrString = (v: number | string | undefined) => (v === undefined || v === null ? '<nil>' : String(v));

/** The update strategy as `fmt.Sprintf("%++v", &strategy)` prints it (upstream's partition/selector denial). */
export function updateStrategyText(s: SidecarSetUpdateStrategy): string {
  const fields = [
    `Type:${s.type ?? ''}`,
    `Paused:${s.paused ?? false}`,
    `Selector:${s.selector ? labelSelectorText(s.selector) : '<nil>'}`,
    `Partition:${intOrString(s.partition)}`,
    `MaxUnavailable:${intOrString(s.maxUnavailable)}`,
    // (a pointer without a String method inside a struct: Go prints its address)
    `PriorityStrategy:${s.priorityStrategy ? GO_ADDRESS : '<nil>'}`,
    `ScatterStrategy:[${(s.scatterStrategy ?? []).map((t) => `{Key:${t.key} Value:${t.value}}`).join(' ')}]`,
  ];
  return `&{${fields.join(' ')}}`;
}

type Revision = NonNullable<SidecarSetInjectionStrategy['revision']>;

/** An injection revision as `%#v` prints it. */
export function goInjectRevision(r: Revision): GoValue {
  return goStruct('v1beta1.SidecarSetInjectRevision', [
    ['CustomVersion', goPointer('string', r.customVersion !== undefined && r.customVersion !== null)],
    ['RevisionName', goPointer('string', r.revisionName !== undefined && r.revisionName !== null)],
    ['Policy', goString(r.policy)],
  ]);
}
