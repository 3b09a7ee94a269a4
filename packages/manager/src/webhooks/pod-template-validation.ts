import { parseQuantity, quantitiesEqual } from '@kruise/kube-compat';
import type { Container, PodSpec, PodTemplateSpec, Volume } from 'kubernetes-types/core/v1.js';
import { duplicate, type FieldError, invalid, notFound, notSupported, required } from './field-errors.ts';

/**
 * The commonest of Kubernetes' pod-template validations (ValidatePodTemplateSpec), with its
 * messages: template labels, containers (names, images, pull policy, ports, env names, volume
 * mounts, requests within limits), volumes, restartPolicy and dnsPolicy. Not every rule of
 * kube-apiserver is here; the API server still validates the pods the workload creates.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const PREFIX_MSG =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const ENV_MSG =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

/** A DNS-1123 label's problems (Kubernetes' IsDNS1123Label). */
export function dns1123LabelErrors(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(value)) out.push(LABEL_MSG);
  return out;
}

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** A DNS-1123 subdomain's problems (Kubernetes' IsDNS1123Subdomain). */
export function dns1123SubdomainErrors(value: string): string[] {
  const out: string[] = [];
  if (value.length > 253) out.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) out.push(SUBDOMAIN_MSG);
  return out;
}

/** A qualified name's problems (label and annotation keys: `[prefix/]name`). */
export function qualifiedNameErrors(key: string): string[] {
  const slash = key.lastIndexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefix = slash === -1 ? '' : key.slice(0, slash);
  const out: string[] = [];
  if (slash !== -1 && !prefix) out.push('prefix part must be non-empty');
  else if (prefix && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) out.push(PREFIX_MSG);
  if (!name) out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  if (name && !QUALIFIED_NAME.test(name)) out.push(NAME_PART_MSG);
  return out;
}

/** A label value's problems (Kubernetes' IsValidLabelValue: its length, then its characters). */
export function labelValueErrors(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) out.push(LABEL_VALUE_MSG);
  return out;
}

/** Kubernetes' ValidateLabels over a labels map at `field`. */
export function labelsErrors(labels: Record<string, string> | undefined, field: string): FieldError[] {
  const out: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of qualifiedNameErrors(k)) out.push(invalid(field, k, msg));
    for (const msg of labelValueErrors(String(v))) out.push(invalid(field, v, msg));
  }
  return out;
}

/** Kubernetes' ValidateAnnotations (sizes aside): keys are qualified names, whatever their case. */
export function annotationsErrors(
  annotations: Record<string, string> | undefined,
  field: string,
): FieldError[] {
  const out: FieldError[] = [];
  for (const k of Object.keys(annotations ?? {}))
    for (const msg of qualifiedNameErrors(k.toLowerCase())) out.push(invalid(field, k, msg));
  return out;
}

const MIRROR_POD = 'kubernetes.io/config.mirror';
const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_CONTAINER = 'container.apparmor.security.beta.kubernetes.io/';

function seccompProfileErrors(profile: string, field: string): FieldError[] {
  if (['runtime/default', 'docker/default', 'unconfined'].includes(profile)) return [];
  if (!profile.startsWith('localhost/')) return [invalid(field, profile, 'must be a valid seccomp profile')];
  const path = profile.slice('localhost/'.length);
  const out: FieldError[] = [];
  if (path.startsWith('/')) out.push(invalid(field, path, 'must be a relative path'));
  if (path.split('/').includes('..')) out.push(invalid(field, path, "must not contain '..'"));
  return out;
}

/**
 * Kubernetes' ValidatePodSpecificAnnotations as Kruise's webhooks run it (any pod deletion cost
 * allowed): the mirror-pod annotation needs a node, and the deprecated seccomp and AppArmor
 * annotations name valid profiles (and, for AppArmor, a container of the pod).
 */
export function podSpecificAnnotationErrors(
  annotations: Record<string, string> | undefined,
  spec: PodSpec | undefined,
  field: string,
): FieldError[] {
  const out: FieldError[] = [];
  const all = annotations ?? {};
  if (MIRROR_POD in all && !spec?.nodeName)
    out.push(
      invalid(
        `${field}[${MIRROR_POD}]`,
        all[MIRROR_POD],
        'must set spec.nodeName if mirror pod annotation is set',
      ),
    );
  if (SECCOMP_POD in all) out.push(...seccompProfileErrors(all[SECCOMP_POD]!, `${field}.${SECCOMP_POD}`));
  for (const [k, v] of Object.entries(all))
    if (k.startsWith(SECCOMP_CONTAINER)) out.push(...seccompProfileErrors(v, `${field}.${k}`));
  const containers = new Set(
    [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])].map(
      (c) => c.name,
    ),
  );
  for (const [k, v] of Object.entries(all)) {
    if (!k.startsWith(APPARMOR_CONTAINER)) continue;
    const container = k.slice(APPARMOR_CONTAINER.length);
    if (!containers.has(container)) out.push(invalid(`${field}[${k}]`, container, 'container not found'));
    if (v && v !== 'runtime/default' && v !== 'unconfined' && !v.startsWith('localhost/'))
      out.push(invalid(`${field}[${k}]`, v, `invalid AppArmor profile name: ${JSON.stringify(v)}`));
  }
  return out;
}

/**
 * What Kubernetes validates of a StatefulSet's pod template besides its selector
 * (ValidatePodTemplateSpecForStatefulSet): the template's labels and annotations, at
 * `<field>.labels` and `<field>.annotations`. The pod spec itself is left to the API server when
 * the pods are created, as Kubernetes leaves it.
 */
export function podTemplateMetadataErrors(
  template: PodTemplateSpec | undefined,
  field: string,
): FieldError[] {
  const annotations = template?.metadata?.annotations;
  return [
    ...labelsErrors(template?.metadata?.labels, `${field}.labels`),
    ...annotationsErrors(annotations, `${field}.annotations`),
    ...podSpecificAnnotationErrors(annotations, template?.spec, `${field}.annotations`),
  ];
}

function containerErrors(
  c: Container,
  path: string,
  volumes: Set<string>,
  names: Set<string>,
  image: boolean,
): FieldError[] {
  const out: FieldError[] = [];
  if (!c.name) out.push(required(`${path}.name`));
  else {
    for (const msg of dns1123LabelErrors(c.name)) out.push(invalid(`${path}.name`, c.name, msg));
    if (names.has(c.name)) out.push(duplicate(`${path}.name`, c.name));
    names.add(c.name);
  }
  if (image && !c.image) out.push(required(`${path}.image`));
  if (c.imagePullPolicy && !['Always', 'IfNotPresent', 'Never'].includes(c.imagePullPolicy))
    out.push(notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
  for (const [i, p] of (c.ports ?? []).entries()) {
    const pp = `${path}.ports[${i}]`;
    if (!p.containerPort) out.push(required(`${pp}.containerPort`));
    else if (p.containerPort < 1 || p.containerPort > 65535)
      out.push(invalid(`${pp}.containerPort`, p.containerPort, 'must be between 1 and 65535, inclusive'));
    if (p.hostPort && (p.hostPort < 1 || p.hostPort > 65535))
      out.push(invalid(`${pp}.hostPort`, p.hostPort, 'must be between 1 and 65535, inclusive'));
    if (!p.protocol) out.push(required(`${pp}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(p.protocol))
      out.push(notSupported(`${pp}.protocol`, p.protocol, ['SCTP', 'TCP', 'UDP']));
  }
  for (const [i, e] of (c.env ?? []).entries()) {
    if (!e.name) out.push(required(`${path}.env[${i}].name`));
    else if (!ENV_NAME.test(e.name)) out.push(invalid(`${path}.env[${i}].name`, e.name, ENV_MSG));
  }
  for (const [i, m] of (c.volumeMounts ?? []).entries()) {
    const mp = `${path}.volumeMounts[${i}]`;
    if (!m.name) out.push(required(`${mp}.name`));
    else if (!volumes.has(m.name)) out.push(notFound(`${mp}.name`, m.name));
    if (!m.mountPath) out.push(required(`${mp}.mountPath`));
  }
  for (const field of ['limits', 'requests'] as const)
    for (const [k, v] of Object.entries(c.resources?.[field] ?? {}))
      if (!parseQuantity(String(v)))
        out.push(
          invalid(
            `${path}.resources.${field}[${k}]`,
            String(v),
            'quantities must match the regular expression',
          ),
        );
  for (const [k, req] of Object.entries(c.resources?.requests ?? {})) {
    const lim = c.resources?.limits?.[k];
    if (lim === undefined) continue;
    const r = parseQuantity(String(req));
    const l = parseQuantity(String(lim));
    if (!r || !l) continue;
    const s = Math.min(r.scale, l.scale);
    const scaled = (q: { mantissa: bigint; scale: number }) => q.mantissa * 10n ** BigInt(q.scale - s);
    if (scaled(r) > scaled(l) && !quantitiesEqual(String(req), String(lim)))
      out.push(
        invalid(
          `${path}.resources.requests`,
          String(req),
          `must be less than or equal to ${k} limit of ${lim}`,
        ),
      );
  }
  return out;
}

function volumeErrors(volumes: Volume[], path: string): { errors: FieldError[]; names: Set<string> } {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  for (const [i, v] of volumes.entries()) {
    const vp = `${path}[${i}]`;
    if (!v.name) errors.push(required(`${vp}.name`));
    else {
      for (const msg of dns1123LabelErrors(v.name)) errors.push(invalid(`${vp}.name`, v.name, msg));
      if (names.has(v.name)) errors.push(duplicate(`${vp}.name`, v.name));
      names.add(v.name);
    }
  }
  return { errors, names };
}

/** Validates a pod template (extra PVC volume names, e.g. volumeClaimTemplates, count as volumes). */
export function podTemplateErrors(
  template: PodTemplateSpec | undefined,
  field: string,
  extraVolumes: string[] = [],
): FieldError[] {
  const out: FieldError[] = [];
  out.push(...labelsErrors(template?.metadata?.labels, `${field}.metadata.labels`));
  out.push(...annotationsErrors(template?.metadata?.annotations, `${field}.metadata.annotations`));
  const spec = template?.spec;
  const sp = `${field}.spec`;
  const vols = volumeErrors(
    [
      ...(spec?.volumes ?? []),
      ...extraVolumes.map((name) => ({ name, persistentVolumeClaim: { claimName: name } })),
    ],
    `${sp}.volumes`,
  );
  out.push(...vols.errors);
  const names = new Set<string>();
  for (const [i, c] of (spec?.initContainers ?? []).entries())
    out.push(...containerErrors(c, `${sp}.initContainers[${i}]`, vols.names, names, true));
  if (!spec?.containers?.length) out.push(required(`${sp}.containers`));
  for (const [i, c] of (spec?.containers ?? []).entries())
    out.push(...containerErrors(c, `${sp}.containers[${i}]`, vols.names, names, true));
  if (spec?.restartPolicy && !['Always', 'OnFailure', 'Never'].includes(spec.restartPolicy))
    out.push(notSupported(`${sp}.restartPolicy`, spec.restartPolicy, ['Always', 'OnFailure', 'Never']));
  if (
    spec?.dnsPolicy &&
    !['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(spec.dnsPolicy)
  )
    out.push(
      notSupported(`${sp}.dnsPolicy`, spec.dnsPolicy, [
        'ClusterFirstWithHostNet',
        'ClusterFirst',
        'Default',
        'None',
      ]),
    );
  if (spec?.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds < 0)
    out.push(
      invalid(
        `${sp}.terminationGracePeriodSeconds`,
        spec.terminationGracePeriodSeconds,
        'must be greater than or equal to 0',
      ),
    );
  return out;
}
