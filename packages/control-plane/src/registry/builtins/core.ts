import { badRequest, type StatusCause } from '../../errors.ts';
import { AGE_COLUMN, column, countKeys, wideColumn } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { EVENT_COLUMNS } from './event-columns.ts';
import { defaultPodSpec } from './pod-defaults.ts';
import { computePodQOS } from './pod-qos.ts';
import { validatePodResize, validatePodUpdate } from './pod-update.ts';
import { dns1123LabelError, invalidValue, required } from './validation.ts';

function podReady(pod: KubeObject): string {
  const statuses: any[] = pod.status?.containerStatuses ?? [];
  const total = (pod.spec?.containers ?? []).length;
  return `${statuses.filter((s) => s.ready).length}/${total}`;
}

function podStatus(pod: KubeObject): string {
  if (pod.metadata?.deletionTimestamp) return 'Terminating';
  let reason: string = pod.status?.reason || pod.status?.phase || 'Pending';
  for (const s of pod.status?.containerStatuses ?? []) {
    if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
    else if (s.state?.terminated)
      reason = s.state.terminated.reason || `ExitCode:${s.state.terminated.exitCode}`;
  }
  return reason;
}

/** Validates a pod write: its containers, and on an update what may change (per subresource). */
function validatePodWrite(pod: KubeObject, old: KubeObject | undefined, subresource: string): StatusCause[] {
  if (old && subresource === 'resize') return [...validatePod(pod), ...validatePodResize(pod, old)];
  if (old && subresource === '') return [...validatePod(pod), ...validatePodUpdate(pod, old)];
  return validatePod(pod);
}

/** Checks a pod's containers as kube-apiserver does (the subset served here). */
export function validatePod(pod: KubeObject): StatusCause[] {
  const containers = pod.spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) return [required('spec.containers')];
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  containers.forEach((c: any, i: number) => {
    if (!c?.name) causes.push(required(`spec.containers[${i}].name`));
    else if (names.has(c.name)) {
      causes.push({
        reason: 'FieldValueDuplicate',
        field: `spec.containers[${i}].name`,
        message: `Duplicate value: "${c.name}"`,
      });
    } else names.add(c.name);
    if (c?.name && dns1123LabelError(c.name)) {
      causes.push(invalidValue(`spec.containers[${i}].name`, c.name, dns1123LabelError(c.name)));
    }
    if (!c?.image) causes.push(required(`spec.containers[${i}].image`));
  });
  return causes;
}

function defaultPod(pod: KubeObject): void {
  pod.spec ??= {};
  defaultPodSpec(pod.spec);
  // Requests default to the limits given (SetDefaults_Pod).
  for (const c of [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])]) {
    const limits = c?.resources?.limits;
    if (!limits || typeof limits !== 'object') continue;
    c.resources.requests ??= {};
    for (const [k, v] of Object.entries(limits)) c.resources.requests[k] ??= v;
  }
  pod.status ??= {};
  pod.status.phase ??= 'Pending';
  pod.status.qosClass ??= computePodQOS(pod);
}

const nodeReady = (node: KubeObject): string => {
  const ready = (node.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
  const status = ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown';
  return node.spec?.unschedulable ? `${status},SchedulingDisabled` : status;
};

const nodeRoles = (node: KubeObject): string => {
  const roles = Object.keys(node.metadata?.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  return roles.length ? roles.sort().join(',') : '<none>';
};

const servicePorts = (svc: KubeObject): string =>
  (svc.spec?.ports ?? []).map((p: any) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',') || '<none>';

const endpointsList = (ep: KubeObject): string => {
  const out: string[] = [];
  for (const subset of ep.subsets ?? []) {
    for (const a of subset.addresses ?? []) for (const p of subset.ports ?? []) out.push(`${a.ip}:${p.port}`);
  }
  return out.length ? out.join(',') : '<none>';
};

/** core/v1 resources. */
export const CORE_RESOURCES: ResourceType[] = [
  builtin({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    statusSubresource: true,
    subresources: ['finalize'],
    columns: [column('Status', (o) => o.status?.phase ?? ''), AGE_COLUMN],
    selectableFields: (o) => ({ 'status.phase': o.status?.phase ?? '' }),
    defaults: (o) => {
      o.spec ??= {};
      o.spec.finalizers ??= ['kubernetes'];
      o.status = { phase: 'Active' };
    },
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    shortNames: ['no'],
    statusSubresource: true,
    columns: [
      column('Status', nodeReady),
      column('Roles', nodeRoles),
      AGE_COLUMN,
      column('Version', (o) => o.status?.nodeInfo?.kubeletVersion ?? ''),
    ],
    selectableFields: (o) => ({ 'spec.unschedulable': String(Boolean(o.spec?.unschedulable)) }),
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Pod',
    returnsDeletedObject: true,
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    statusSubresource: true,
    subresources: ['eviction', 'binding', 'log', 'resize'],
    columns: [
      column('Ready', podReady),
      column('Status', podStatus),
      column(
        'Restarts',
        (o) =>
          (o.status?.containerStatuses ?? []).reduce((n: number, s: any) => n + (s.restartCount ?? 0), 0),
        'integer',
      ),
      AGE_COLUMN,
      wideColumn('IP', (o) => o.status?.podIP || '<none>'),
      wideColumn('Node', (o) => o.spec?.nodeName || '<none>'),
      wideColumn('Nominated Node', (o) => o.status?.nominatedNodeName || '<none>'),
      wideColumn('Readiness Gates', (o) => {
        const gates: any[] = o.spec?.readinessGates ?? [];
        if (!gates.length) return '<none>';
        const ok = gates.filter((g) =>
          (o.status?.conditions ?? []).some((c: any) => c.type === g.conditionType && c.status === 'True'),
        );
        return `${ok.length}/${gates.length}`;
      }),
    ],
    validate: validatePodWrite,
    defaults: defaultPod,
    selectableFields: (o) => ({
      'spec.nodeName': o.spec?.nodeName ?? '',
      'spec.restartPolicy': o.spec?.restartPolicy ?? '',
      'spec.schedulerName': o.spec?.schedulerName ?? '',
      'spec.serviceAccountName': o.spec?.serviceAccountName ?? '',
      'status.phase': o.status?.phase ?? '',
      'status.podIP': o.status?.podIP ?? '',
      'status.nominatedNodeName': o.status?.nominatedNodeName ?? '',
    }),
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    columns: [
      column('Type', (o) => o.type ?? 'Opaque'),
      column('Data', (o) => countKeys(o.data), 'integer'),
      AGE_COLUMN,
    ],
    defaults: (o) => {
      o.type ??= 'Opaque';
    },
    normalize: (o) => {
      // Go decodes `data` as []byte: a value that is not base64 fails the decoding itself (400).
      for (const v of Object.values(o.data ?? {})) {
        const text = String(v);
        const bad = text.search(/[^A-Za-z0-9+/=]/);
        const at = bad !== -1 ? bad : text.length % 4 !== 0 ? text.length - (text.length % 4) : -1;
        if (at !== -1)
          throw badRequest(
            `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${at}`,
          );
      }
      if (o.stringData && typeof o.stringData === 'object') {
        o.data = { ...o.data };
        for (const [k, v] of Object.entries(o.stringData))
          o.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
      }
      delete o.stringData;
    },
    validate: (o) => {
      const causes: StatusCause[] = [];
      for (const [k, v] of Object.entries(o.data ?? {})) {
        if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: `data[${k}]`,
            message: 'Invalid value: illegal base64 data',
          });
        }
      }
      return causes;
    },
    selectableFields: (o) => ({ type: o.type ?? '' }),
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    shortNames: ['cm'],
    columns: [column('Data', (o) => countKeys(o.data) + countKeys(o.binaryData), 'integer'), AGE_COLUMN],
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Service',
    returnsDeletedObject: true,
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    statusSubresource: true,
    columns: [
      column('Type', (o) => o.spec?.type ?? 'ClusterIP'),
      column('Cluster-IP', (o) => o.spec?.clusterIP ?? '<none>'),
      column('External-IP', () => '<none>'),
      column('Port(s)', servicePorts),
      AGE_COLUMN,
    ],
    defaults: (o) => {
      o.spec ??= {};
      o.spec.type ??= 'ClusterIP';
      o.spec.sessionAffinity ??= 'None';
      for (const p of o.spec.ports ?? []) {
        if (p && typeof p === 'object') {
          p.protocol ??= 'TCP';
          p.targetPort ??= p.port;
        }
      }
    },
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Endpoints',
    plural: 'endpoints',
    singular: 'endpoints',
    listKind: 'EndpointsList',
    namespaced: true,
    shortNames: ['ep'],
    columns: [column('Endpoints', endpointsList), AGE_COLUMN],
    defaults: (o) => {
      for (const subset of Array.isArray(o.subsets) ? o.subsets : [])
        for (const p of subset?.ports ?? []) if (p && typeof p === 'object') p.protocol ??= 'TCP';
    },
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    returnsDeletedObject: true,
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
    subresources: ['token'],
    columns: [column('Secrets', (o) => (o.secrets ?? []).length, 'integer'), AGE_COLUMN],
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    columns: EVENT_COLUMNS,
    selectableFields: (o) => ({
      'involvedObject.kind': o.involvedObject?.kind ?? '',
      'involvedObject.namespace': o.involvedObject?.namespace ?? '',
      'involvedObject.name': o.involvedObject?.name ?? '',
      'involvedObject.uid': o.involvedObject?.uid ?? '',
      'involvedObject.apiVersion': o.involvedObject?.apiVersion ?? '',
      'involvedObject.resourceVersion': o.involvedObject?.resourceVersion ?? '',
      'involvedObject.fieldPath': o.involvedObject?.fieldPath ?? '',
      reason: o.reason ?? '',
      reportingComponent: o.reportingComponent ?? '',
      source: o.source?.component ?? '',
      type: o.type ?? '',
    }),
  }),
];
