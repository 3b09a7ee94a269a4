import { ApiError, conflict, invalid, notFound, type StatusCause } from '../errors.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { Store } from '../store/store.ts';
import { nowRFC3339, type WriteOptions } from './context.ts';
import type { ObjectService } from './objects.ts';
import { admitSubresourceCreate, subresourceBody } from './pod-subresource-post.ts';

/** kube-apiserver's answer to a successful binding or eviction POST. */
export const CREATED_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  code: 201,
};

const BINDING = { group: '', version: 'v1', kind: 'Binding' };

/** ValidatePodBinding. */
function bindingCauses(binding: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const target = binding.target ?? {};
  if (target.kind && target.kind !== 'Node')
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'target.kind',
      message: `Unsupported value: ${JSON.stringify(target.kind)}: supported values: "Node", "<empty>"`,
    });
  if (!target.name)
    causes.push({ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' });
  return causes;
}

/** Sets or replaces the PodScheduled condition of a pod status (in place). */
export function setPodScheduled(status: KubeObject, condition: Record<string, unknown>): boolean {
  status.conditions ??= [];
  const conditions: any[] = status.conditions;
  const at = conditions.findIndex((c) => c?.type === 'PodScheduled');
  const old = at === -1 ? undefined : conditions[at];
  if (
    old &&
    old.status === condition.status &&
    old.reason === condition.reason &&
    old.message === condition.message
  )
    return false;
  const next = {
    type: 'PodScheduled',
    ...condition,
    lastProbeTime: null,
    lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : nowRFC3339(),
  };
  if (at === -1) conditions.push(next);
  else conditions[at] = next;
  return true;
}

/**
 * POST pods/binding (v1 Binding): admission for `pods/binding` CREATE, then the pod's nodeName,
 * the binding's annotations and PodScheduled=True, committed at once as kube-apiserver's
 * BindingREST does (no pod update validation: nodeName is otherwise immutable).
 */
export async function bindPod(
  store: Store,
  objects: ObjectService,
  podType: ResourceType,
  namespace: string,
  name: string,
  body: KubeObject,
  options: WriteOptions,
): Promise<void> {
  const binding = subresourceBody(body, BINDING, namespace, name);
  const causes = bindingCauses(binding);
  if (causes.length) throw invalid('Binding', '', name, causes);
  const current = store.get('/pods', namespace, name);
  if (!current) throw notFound('pods', '', name);
  await admitSubresourceCreate(objects, podType, 'binding', binding, BINDING, options);
  if (options.dryRun) return;
  const node = String(binding.target.name);
  const uid = binding.metadata!.uid;
  store.commit('/pods', namespace, name, (entry) => {
    if (!entry) throw notFound('pods', '', name);
    const pod = structuredClone(entry.obj);
    if (uid && pod.metadata?.uid !== uid)
      throw conflict(
        'pods/binding',
        '',
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata?.uid}`,
      );
    if (pod.metadata?.deletionTimestamp)
      throw conflict('pods/binding', '', name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (pod.spec?.nodeName)
      throw conflict(
        'pods/binding',
        '',
        name,
        `pod ${name} is already assigned to node "${pod.spec.nodeName}"`,
      );
    pod.spec = { ...pod.spec, nodeName: node };
    const annotations = binding.metadata!.annotations;
    if (annotations && typeof annotations === 'object')
      pod.metadata = { ...pod.metadata, annotations: { ...pod.metadata?.annotations, ...annotations } };
    pod.status ??= {};
    setPodScheduled(pod.status, { status: 'True' });
    return pod;
  });
}

/** Whether an error is a 409 Conflict (the pod was bound or deleted meanwhile). */
export const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409;
