import { AdvancedCronJobSchema } from './schema/advancedcronjob.ts';
import { BroadcastJobSchema } from './schema/broadcastjob.ts';
import { CloneSetSchema } from './schema/cloneset.ts';
import { ContainerRecreateRequestSchema } from './schema/containerrecreaterequest.ts';
import { DaemonSetSchema } from './schema/daemonset.ts';
import { ImageListPullJobSchema } from './schema/imagelistpulljob.ts';
import { ImagePullJobSchema } from './schema/imagepulljob.ts';
import { NodeImageSchema } from './schema/nodeimage.ts';
import { PodUnavailableBudgetSchema } from './schema/podunavailablebudget.ts';
import { StatefulSetSchema } from './schema/statefulset.ts';

type Schema = Record<string, any>;

const SCHEMAS: Record<string, Schema> = {
  // v1beta1: v1alpha1's fields are a subset of it, with the same types.
  AdvancedCronJob: AdvancedCronJobSchema,
  CloneSet: CloneSetSchema,
  ImagePullJob: ImagePullJobSchema,
  ImageListPullJob: ImageListPullJobSchema,
  NodeImage: NodeImageSchema,
  ContainerRecreateRequest: ContainerRecreateRequestSchema,
  // v1beta1: v1alpha1's fields are a subset of it, with the same types.
  StatefulSet: StatefulSetSchema,
  // v1beta1: v1alpha1 differs only in the Surging type, scaleStrategy and daemonSetHash.
  DaemonSet: DaemonSetSchema,
  // The same schema at v1alpha1 and v1beta1.
  BroadcastJob: BroadcastJobSchema,
  PodUnavailableBudget: PodUnavailableBudgetSchema,
};

const jsonType = (v: unknown) =>
  Array.isArray(v)
    ? 'array'
    : typeof v === 'number'
      ? `number ${v}`
      : typeof v === 'object'
        ? 'object'
        : typeof v;
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const INT32 = [-(2 ** 31), 2 ** 31 - 1];

/** The first value whose JSON type the schema does not allow, as [dotted field, found, wanted]. */
function mismatch(schema: Schema, value: unknown, path: string[]): [string, unknown, string] | undefined {
  if (value === undefined || value === null) return undefined; // Go leaves the zero value
  const here = path.join('.');
  if (schema['x-kubernetes-int-or-string']) {
    return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))
      ? undefined
      : [here, value, 'intstr.IntOrString'];
  }
  switch (schema.type) {
    case 'object': {
      if (!isObject(value)) return [here, value, 'object'];
      for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        const m = mismatch(s, value[k], [...path, k]);
        if (m) return m;
      }
      const extra = schema.additionalProperties;
      if (isObject(extra) && !schema.properties)
        for (const [k, v] of Object.entries(value)) {
          const m = mismatch(extra, v, [...path, k]);
          if (m) return m;
        }
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value)) return [here, value, 'array'];
      for (const item of value) {
        const m = schema.items ? mismatch(schema.items, item, path) : undefined;
        if (m) return m;
      }
      return undefined;
    }
    case 'string':
      return typeof value === 'string' ? undefined : [here, value, 'string'];
    case 'boolean':
      return typeof value === 'boolean' ? undefined : [here, value, 'bool'];
    case 'number':
      return typeof value === 'number' ? undefined : [here, value, 'float64'];
    case 'integer': {
      const int32 = schema.format === 'int32';
      const ok =
        typeof value === 'number' &&
        Number.isInteger(value) &&
        (int32 ? value >= INT32[0]! && value <= INT32[1]! : Number.isSafeInteger(value));
      return ok ? undefined : [here, value, int32 ? 'int32' : 'int64'];
    }
    default:
      return undefined;
  }
}

/**
 * Why `obj` cannot be decoded as a `kind` (the first field whose JSON type is wrong), worded as
 * Go's encoding/json says it — `json: cannot unmarshal string into Go struct field
 * ImagePullJob.spec.pullPolicy of type object` — or undefined when its shape is right. Unknown
 * fields and nulls pass, as with Go's decoder.
 */
export function shapeError(kind: string, obj: unknown): string | undefined {
  const schema = SCHEMAS[kind];
  if (!schema) return undefined;
  if (!isObject(obj)) return `json: cannot unmarshal ${jsonType(obj)} into Go value of type v1alpha1.${kind}`;
  const meta = obj.metadata;
  if (isObject(meta)) {
    for (const field of ['labels', 'annotations'] as const) {
      const map = meta[field];
      if (map === undefined || map === null) continue;
      if (!isObject(map))
        return `json: cannot unmarshal ${jsonType(map)} into Go struct field ObjectMeta.metadata.${field} of type map[string]string`;
      for (const v of Object.values(map))
        if (typeof v !== 'string' && v !== null)
          return `json: cannot unmarshal ${jsonType(v)} into Go struct field ObjectMeta.metadata.${field} of type string`;
    }
    const finalizers = meta.finalizers;
    if (
      finalizers !== undefined &&
      finalizers !== null &&
      (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string'))
    )
      return `json: cannot unmarshal ${jsonType(finalizers)} into Go struct field ObjectMeta.metadata.finalizers of type []string`;
  }
  const m = mismatch(schema, obj, []);
  return m
    ? `json: cannot unmarshal ${jsonType(m[1])} into Go struct field ${kind}.${m[0]} of type ${m[2]}`
    : undefined;
}
