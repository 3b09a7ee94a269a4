import type { IntOrString, LabelSelectorFields } from '@kruise/kube-compat';
import { type GoValue, goString, goStruct } from '../field-errors.ts';

/**
 * A PodUnavailableBudget as upstream's webhook holds it once Go has decoded the JSON: a `null` or
 * missing pointer is nil (absent here), `{}` and `[]` stay empty (they differ from nil for Go's
 * reflect.DeepEqual and in `%#v`), a `null` string is `""`, and unknown fields are gone.
 */

/** v1alpha1.TargetReference (three strings, `""` when unset). */
export interface GoTargetReference {
  apiVersion: string;
  kind: string;
  name: string;
}

/** The parts of a budget its webhook reads. */
export interface PubView {
  name: string;
  namespace: string;
  /** The annotations, a `null` value read as `""`. */
  annotations: Map<string, string>;
  selector: LabelSelectorFields | undefined;
  targetRef: GoTargetReference | undefined;
  maxUnavailable: IntOrString | undefined;
  minAvailable: IntOrString | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const goStr = (v: unknown): string => (typeof v === 'string' ? v : '');

function stringMap(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  return Object.fromEntries(Object.entries(v).map(([k, s]) => [k, goStr(s)]));
}

/** A metav1.LabelSelector as Go decodes it (undefined for nil). */
export function goSelectorView(v: unknown): LabelSelectorFields | undefined {
  if (!isObject(v)) return undefined;
  const exprs = v.matchExpressions;
  return {
    matchLabels: stringMap(v.matchLabels),
    matchExpressions: Array.isArray(exprs)
      ? exprs.map((e) => {
          const r = isObject(e) ? e : {};
          return {
            key: goStr(r.key),
            operator: goStr(r.operator),
            values: Array.isArray(r.values) ? r.values.map(goStr) : undefined,
          };
        })
      : undefined,
  };
}

function targetRefView(v: unknown): GoTargetReference | undefined {
  if (!isObject(v)) return undefined;
  return { apiVersion: goStr(v.apiVersion), kind: goStr(v.kind), name: goStr(v.name) };
}

const intOrString = (v: unknown): IntOrString | undefined =>
  typeof v === 'number' || typeof v === 'string' ? v : undefined;

/** The budget as Go decodes it (any shape in, never a throw: what is not of its type reads as Go's zero). */
export function pubView(pub: unknown): PubView {
  const obj = isObject(pub) ? pub : {};
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const spec = isObject(obj.spec) ? obj.spec : {};
  return {
    name: goStr(meta.name),
    namespace: goStr(meta.namespace),
    annotations: new Map(Object.entries(stringMap(meta.annotations) ?? {})),
    selector: goSelectorView(spec.selector),
    targetRef: targetRefView(spec.targetRef),
    maxUnavailable: intOrString(spec.maxUnavailable),
    minAvailable: intOrString(spec.minAvailable),
  };
}

/** `v1alpha1.TargetReference{APIVersion:"apps/v1", Kind:"Deployment", Name:"web"}`. */
export function goTargetReference(ref: GoTargetReference): GoValue {
  return goStruct('v1alpha1.TargetReference', [
    ['APIVersion', goString(ref.apiVersion)],
    ['Kind', goString(ref.kind)],
    ['Name', goString(ref.name)],
  ]);
}
