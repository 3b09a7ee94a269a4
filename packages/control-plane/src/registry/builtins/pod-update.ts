import type { StatusCause } from '../../errors.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import type { KubeObject } from '../types.ts';
import { computePodQOS, podQOS } from './pod-qos.ts';
import { quantityValue, sameResourceList } from './quantity.ts';
import { required } from './validation.ts';

/** kube-apiserver's list of what a pod update may change (its `updatablePodSpecFields`). */
const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

const MAX_INT32 = 2147483647;

const forbidden = (field: string, detail: string): StatusCause => ({
  reason: 'FieldValueForbidden',
  field,
  message: `Forbidden: ${detail}`,
});

const invalidValue = (field: string, value: unknown, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${value === undefined || value === null ? 'null' : JSON.stringify(value)}: ${detail}`,
});

/** A JSON value without empty members, so that `""`, `null` and a missing field compare equal (Go zero values). */
function withoutZeroValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZeroValues);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === null || v === '' || v === false || v === 0) continue;
    out[k] = withoutZeroValues(v);
  }
  return out;
}

function containerUpdateCauses(
  next: any[],
  old: any[],
  field: string,
): { causes: StatusCause[]; stop: boolean } {
  if (next.length !== old.length)
    return { causes: [forbidden(field, 'pod updates may not add or remove containers')], stop: true };
  const causes: StatusCause[] = [];
  next.forEach((c, i) => {
    const image = typeof c?.image === 'string' ? c.image : '';
    if (image === '') causes.push(required(`${field}[${i}].image`));
    else if (image.trim() !== image)
      causes.push(
        invalidValue(`${field}[${i}].image`, image, 'must not have leading or trailing whitespace'),
      );
  });
  return { causes, stop: false };
}

function tolerationCauses(next: any[], old: any[]): StatusCause[] {
  const comparable = (t: any) => withoutZeroValues({ ...t, tolerationSeconds: undefined });
  for (const o of old) {
    if (!next.some((n) => deepEqual(comparable(n), comparable(o))))
      return [
        forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
      ];
  }
  return [];
}

function schedulingGateCauses(next: any[], old: any[]): StatusCause[] {
  const before = new Set(old.map((g) => g?.name));
  const causes: StatusCause[] = [];
  next.forEach((g, i) => {
    if (!before.has(g?.name))
      causes.push(
        forbidden(
          `spec.schedulingGates[${i}].name`,
          `only deletion is allowed, but found new scheduling gate '${g?.name}'`,
        ),
      );
  });
  return causes;
}

/** The lines that differ between two specs, in the spirit of the diff kube-apiserver appends. */
function specDiff(old: unknown, next: unknown, path = ''): string[] {
  if (deepEqual(withoutZeroValues(old), withoutZeroValues(next))) return [];
  const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(old) && isObj(next)) {
    const a = old as Record<string, unknown>;
    const b = next as Record<string, unknown>;
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) =>
      specDiff(a[k], b[k], path ? `${path}.${k}` : k),
    );
  }
  if (Array.isArray(old) && Array.isArray(next) && old.length === next.length)
    return old.flatMap((v, i) => specDiff(v, next[i], `${path}[${i}]`));
  const show = (v: unknown) => (v === undefined ? 'nil' : JSON.stringify(v));
  return [`- \t${path}: ${show(old)},`, `+ \t${path}: ${show(next)},`];
}

/**
 * kube-apiserver's ValidatePodUpdate: an update of a pod may change container images,
 * `activeDeadlineSeconds` (set, or lowered), tolerations (additions; tolerationSeconds),
 * scheduling gates (removals), `terminationGracePeriodSeconds` from negative to 1, and for a gated
 * pod additions to `nodeSelector`; anything else in the spec is Forbidden with its message.
 */
export function validatePodUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  const causes: StatusCause[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    const r = containerUpdateCauses(spec[list] ?? [], oldSpec[list] ?? [], `spec.${list}`);
    causes.push(...r.causes);
    if (r.stop) return causes;
  }
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) {
    if (deadline < 0 || deadline > MAX_INT32) {
      causes.push(
        invalidValue('spec.activeDeadlineSeconds', deadline, `must be between 0 and ${MAX_INT32}, inclusive`),
      );
      return causes;
    }
    if (typeof oldSpec.activeDeadlineSeconds === 'number' && oldSpec.activeDeadlineSeconds < deadline) {
      causes.push(
        invalidValue('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value'),
      );
      return causes;
    }
  } else if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds !== null) {
    causes.push(
      invalidValue(
        'spec.activeDeadlineSeconds',
        null,
        'must not update from a positive integer to nil value',
      ),
    );
  }
  causes.push(...tolerationCauses(spec.tolerations ?? [], oldSpec.tolerations ?? []));
  causes.push(...schedulingGateCauses(spec.schedulingGates ?? [], oldSpec.schedulingGates ?? []));
  if (deepEqual(spec, oldSpec)) return causes;

  const munged: Record<string, any> = structuredClone(spec);
  for (const list of ['containers', 'initContainers'] as const) {
    if (Array.isArray(munged[list]))
      munged[list].forEach((c: any, i: number) => {
        if (c && typeof c === 'object') c.image = oldSpec[list][i]?.image;
      });
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  if (oldSpec.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = oldSpec.terminationGracePeriodSeconds;
  if ((oldSpec.schedulingGates ?? []).length > 0 && !deepEqual(munged.nodeSelector, oldSpec.nodeSelector)) {
    const before: Record<string, string> = oldSpec.nodeSelector ?? {};
    const after: Record<string, string> = munged.nodeSelector ?? {};
    const changed = Object.keys(before).filter((k) => after[k] !== before[k]);
    if (changed.length === 0) munged.nodeSelector = oldSpec.nodeSelector;
    else
      for (const k of changed)
        causes.push(
          forbidden(`spec.nodeSelector[${k}]`, 'existing node selectors cannot be removed or updated'),
        );
  }
  if (!deepEqual(withoutZeroValues(munged), withoutZeroValues(oldSpec))) {
    const diff = ['  core.PodSpec{', ...specDiff(oldSpec, munged), '  }'].join('\n');
    causes.push(
      forbidden(
        'spec',
        `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${diff}`,
      ),
    );
  }
  return causes;
}

/**
 * The pod a `pods/resize` write makes (kube-apiserver's dropNonResizeUpdates): the stored pod with
 * only the containers' `resources` and `resizePolicy` taken from the request, matched by name.
 */
export function resizedPod(old: KubeObject, desired: KubeObject): KubeObject {
  const next = structuredClone(old);
  for (const list of ['containers', 'initContainers'] as const) {
    const byName = new Map<string, any>((next.spec?.[list] ?? []).map((c: any) => [c?.name, c]));
    for (const c of desired.spec?.[list] ?? []) {
      const target = byName.get(c?.name);
      if (!target) continue;
      if (c.resources === undefined) delete target.resources;
      else target.resources = structuredClone(c.resources);
      if (c.resizePolicy === undefined) delete target.resizePolicy;
      else target.resizePolicy = structuredClone(c.resizePolicy);
    }
  }
  return next;
}

function containerResizeCauses(next: any, old: any, policies: any[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const removed = (a: Record<string, unknown> = {}, b: Record<string, unknown> = {}) =>
    Object.keys(b).some((k) => !(k in a));
  if (removed(next?.requests, old?.requests))
    causes.push(forbidden(`${field}.requests`, 'resource requests cannot be removed'));
  if (removed(next?.limits, old?.limits))
    causes.push(forbidden(`${field}.limits`, 'resource limits cannot be removed'));
  const memoryPolicy = policies.find((p) => p?.resourceName === 'memory')?.restartPolicy ?? '';
  if (memoryPolicy === 'NotRequired' || memoryPolicy === '') {
    const newLimit = quantityValue(next?.limits?.memory);
    const oldLimit = quantityValue(old?.limits?.memory);
    if (newLimit !== undefined && oldLimit !== undefined) {
      if (newLimit < oldLimit)
        causes.push(
          forbidden(
            `${field}.limits[memory]`,
            'memory limits cannot be decreased unless resizePolicy is RestartContainer',
          ),
        );
    } else if (newLimit !== undefined)
      causes.push(
        forbidden(
          `${field}.limits[memory]`,
          'memory limits cannot be added unless resizePolicy is RestartContainer',
        ),
      );
  }
  return causes;
}

/** A container with its cpu and memory quantities put back to the old container's (dropCPUMemoryResourcesFromContainer). */
function withoutCpuMemoryChanges(c: any, old: any): any {
  const munge = (list: Record<string, unknown> | undefined, oldList: Record<string, unknown> | undefined) => {
    if (!oldList) return undefined;
    const out: Record<string, unknown> = { ...list };
    delete out.cpu;
    delete out.memory;
    if ('cpu' in oldList) out.cpu = oldList.cpu;
    if ('memory' in oldList) out.memory = oldList.memory;
    return out;
  };
  const limits = munge(c?.resources?.limits, old?.resources?.limits);
  const requests = munge(c?.resources?.requests, old?.resources?.requests);
  return { ...c, resources: { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) } };
}

const sameContainer = (a: any, b: any) =>
  deepEqual(
    withoutZeroValues({ ...a, resources: undefined }),
    withoutZeroValues({ ...b, resources: undefined }),
  ) &&
  sameResourceList(a?.resources?.limits, b?.resources?.limits) &&
  sameResourceList(a?.resources?.requests, b?.resources?.requests);

/** Whether the pod's node reports container resources (kube-apiserver's isPodResizeRequestSupported). */
function resizeSupported(pod: KubeObject): boolean {
  const running = (pod.status?.containerStatuses ?? []).find((s: any) => s?.state?.running);
  return running ? running.resources !== undefined && running.resources !== null : true;
}

/** kube-apiserver's ValidatePodResize (Kubernetes 1.33) for a write to `pods/resize`. */
export function validatePodResize(pod: KubeObject, old: KubeObject): StatusCause[] {
  const podLevel = (p: KubeObject) =>
    Object.keys(p.spec?.resources?.requests ?? {}).length +
      Object.keys(p.spec?.resources?.limits ?? {}).length >
    0;
  if (podLevel(old) || podLevel(pod))
    return [forbidden('', 'pods with pod-level resources cannot be resized')];
  if (old.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined)
    return [forbidden('', 'static pods cannot be resized')];
  if (old.spec?.os?.name === 'windows') return [forbidden('', 'windows pods cannot be resized')];
  const causes: StatusCause[] = [];
  if (podQOS(old) !== computePodQOS(pod))
    causes.push(
      invalidValue('spec', pod.status?.qosClass, 'Pod QOS Class may not change as a result of resizing'),
    );
  if (!resizeSupported(old)) causes.push(forbidden('spec', 'Pod running on node without support for resize'));
  const sidecar = (c: any) => c?.restartPolicy === 'Always';
  const oldInit: any[] = old.spec?.initContainers ?? [];
  const newInit: any[] = pod.spec?.initContainers ?? [];
  oldInit.forEach((c, i) => {
    if (sidecar(c))
      causes.push(
        ...containerResizeCauses(
          newInit[i]?.resources,
          c.resources,
          newInit[i]?.resizePolicy ?? [],
          `spec.initContainers[${i}].resources`,
        ),
      );
  });
  const oldContainers: any[] = old.spec?.containers ?? [];
  const newContainers: any[] = pod.spec?.containers ?? [];
  oldContainers.forEach((c, i) => {
    causes.push(
      ...containerResizeCauses(
        newContainers[i]?.resources,
        c.resources,
        newContainers[i]?.resizePolicy ?? [],
        `spec.containers[${i}].resources`,
      ),
    );
  });
  newContainers.forEach((c, i) => {
    if (!sameContainer(withoutCpuMemoryChanges(c, oldContainers[i]), oldContainers[i]))
      causes.push(forbidden('spec', 'only cpu and memory resources are mutable'));
  });
  newInit.forEach((c, i) => {
    if (sidecar(c)) {
      if (!sameContainer(withoutCpuMemoryChanges(c, oldInit[i]), oldInit[i]))
        causes.push(forbidden('spec', 'only cpu and memory resources for sidecar containers are mutable'));
    } else if (!sameContainer(c, oldInit[i]))
      causes.push(forbidden('spec', 'resources for non-sidecar init containers are immutable'));
  });
  return causes;
}
