import type { FeatureGates } from '@kruise/api';
import type { AdmissionRequest, AdmissionResponse } from '@kruise/runtime';
import { encodeStruct } from '../workload/revision/go-encode.ts';

/**
 * What the workloads' defaulting webhooks share: the object written back as a Go webhook writes
 * it, and when the pod-template defaults are injected.
 */

/**
 * A workload as upstream's webhook re-encodes it after decoding it into the Go struct `struct`
 * (Go's field rules for its spec: `creationTimestamp: null`, `resources: {}`, …); metadata and
 * status are left as sent (the API server owns them, and ignores status written with the spec).
 */
export function goEncodedWorkload(obj: object, struct: string): Record<string, unknown> {
  const { status: _encodedStatus, ...encoded } = encodeStruct(obj as Record<string, unknown>, struct);
  const { metadata, status } = obj as { metadata?: unknown; status?: unknown };
  return { ...encoded, metadata, ...(status === undefined ? {} : { status }) };
}

const encodedTemplate = (template: unknown) =>
  JSON.stringify(encodeStruct((template ?? {}) as Record<string, unknown>, 'PodTemplateSpec'));

/**
 * Whether the pod-template defaults are injected: never with gate TemplateNoDefaults, always on
 * create, on update only when the template changed (compared as Go decodes it). `oldTemplate`
 * reads the old object's template, or answers 400 when it cannot be decoded.
 */
export function templateDefaulting(
  gates: FeatureGates,
  request: AdmissionRequest,
  template: unknown,
  oldTemplate: () => { template: unknown } | { response: AdmissionResponse },
): { inject: boolean } | { response: AdmissionResponse } {
  if (gates.enabled('TemplateNoDefaults')) return { inject: false };
  if (request.operation !== 'UPDATE') return { inject: true };
  const old = oldTemplate();
  if ('response' in old) return old;
  return { inject: encodedTemplate(template) !== encodedTemplate(old.template) };
}
