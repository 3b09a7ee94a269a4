import { shapeError } from '@kruise/api/schemas';
import { type AdmissionRequest, type AdmissionResponse, denied } from '@kruise/runtime';
import { goDecodeError } from '../workload/revision/go-encode.ts';

const isObject = (v: unknown): v is Record<string, any> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Fields of a kind's spec that hold core/v1 structs (their CRD schema keeps unknown fields). */
const EMBEDDED: Record<string, Record<string, string>> = {
  CloneSet: { template: 'PodTemplateSpec', volumeClaimTemplates: '[]PersistentVolumeClaim' },
  StatefulSet: { template: 'PodTemplateSpec', volumeClaimTemplates: '[]PersistentVolumeClaim' },
  DaemonSet: { template: 'PodTemplateSpec' },
  BroadcastJob: { template: 'PodTemplateSpec' },
};

/**
 * The request's object when it has the shape the handlers read (an object whose `spec`, if any,
 * is an object), or a 400 denial with a decoding message as controller-runtime's decoder gives
 * (`version`: the Go package the kind is decoded into, v1alpha1 unless told).
 */
export function decodeObject<T>(
  request: AdmissionRequest,
  kind: string,
  version = 'v1alpha1',
): { obj: T } | { response: AdmissionResponse } {
  const obj = request.object;
  if (!isObject(obj)) return { response: denied(400, `there is no content to decode`) };
  if (obj.spec !== undefined && obj.spec !== null && !isObject(obj.spec)) {
    return {
      response: denied(
        400,
        `json: cannot unmarshal ${Array.isArray(obj.spec) ? 'array' : typeof obj.spec} into Go struct field ${kind}.spec of type ${version}.${kind}Spec`,
      ),
    };
  }
  if (obj.metadata !== undefined && !isObject(obj.metadata)) {
    return {
      response: denied(
        400,
        `json: cannot unmarshal ${typeof obj.metadata} into Go struct field ${kind}.metadata of type v1.ObjectMeta`,
      ),
    };
  }
  const shape = shapeError(kind, obj);
  if (shape) return { response: denied(400, shape) };
  // Built-in types embedded in a kind (a workload's pod template) are checked as Go decodes them.
  const embedded = EMBEDDED[kind];
  const spec = obj.spec as Record<string, unknown> | undefined;
  for (const [field, type] of Object.entries(embedded ?? {})) {
    const e = goDecodeError(spec?.[field], type, kind, `spec.${field}`);
    if (e) return { response: denied(400, e) };
  }
  return { obj: obj as T };
}

/** 403 for a feature gate that is off, as upstream words it. */
export const gateOff = (gate: string) => denied(403, `feature-gate ${gate} is not enabled`);
