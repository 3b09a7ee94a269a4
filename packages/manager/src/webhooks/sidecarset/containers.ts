import type { SidecarContainer, TransferEnvVar } from '@kruise/api';
import type { Container, ObjectFieldSelector, Volume } from 'kubernetes-types/core/v1.js';
import { coreContainer } from '../../workload/sidecarset/core-container.ts';
import { splitSubscriptedPath } from '../../workload/sidecarset/field-path.ts';
import { type FieldError, type GoValue, goString, goStruct, invalid, required } from '../field-errors.ts';
import { podTemplateErrors, qualifiedNameErrors } from '../pod-template-validation.ts';
import { goResourcesPolicy, resourcesPolicyErrors } from './resources-policy.ts';

/**
 * Upstream's validateContainersForSidecarSet: the sidecar fields of each container (inject and
 * share-volume policies, transferEnv field references, resourcesPolicy), then every container and
 * volume as Kubernetes validates a pod holding them (paths `spec.containers[i]…`,
 * `spec.initContainers[i]…`, `spec.volumes[i]…`). Upstream's own paths are kept, odd as they are:
 * a container's index hangs off `spec` (`spec[0].transferEnv.fieldRef`).
 */

/**
 * Upstream's validateObjectFieldSelector for transferEnv's sourceContainerNameFrom.fieldRef, through
 * its ConvertDownwardAPIFieldLabel, which accepts only a subscripted `metadata.annotations['…']` or
 * `metadata.labels['…']` (so even `metadata.name` is refused, as upstream refuses it).
 */
function fieldRefErrors(fs: ObjectFieldSelector, field: string): FieldError[] {
  if (!fs.apiVersion) return [required(`${field}.apiVersion`)];
  if (!fs.fieldPath) return [required(`${field}.fieldPath`)];
  const converting = (e: string) => [
    invalid(`${field}.fieldPath`, fs.fieldPath, `error converting fieldPath: ${e}`),
  ];
  if (fs.apiVersion !== 'v1') return converting(`unsupported pod version: ${fs.apiVersion}`);
  const split = splitSubscriptedPath(fs.fieldPath);
  if (!split) return converting(`field label not supported: ${fs.fieldPath}`);
  const [path, key] = split;
  if (path !== 'metadata.annotations' && path !== 'metadata.labels')
    return converting(`field path not supported: ${path}`);
  return qualifiedNameErrors(path === 'metadata.annotations' ? key.toLowerCase() : key).map((msg) =>
    invalid(field, key, msg),
  );
}

function transferEnvErrors(envs: TransferEnvVar[] | undefined, field: string): FieldError[] {
  return (envs ?? []).flatMap((t) =>
    t.sourceContainerNameFrom?.fieldRef
      ? fieldRefErrors(t.sourceContainerNameFrom.fieldRef, `${field}.fieldRef`)
      : [],
  );
}

const goShareVolumePolicy = (c: SidecarContainer): GoValue =>
  goStruct('v1beta1.ShareVolumePolicy', [['Type', goString(c.shareVolumePolicy?.type)]]);

/** The errors of a SidecarSet's init containers, containers and volumes. */
export function sidecarContainersErrors(
  initContainers: SidecarContainer[],
  containers: SidecarContainer[],
  volumes: Volume[],
): FieldError[] {
  const out: FieldError[] = [];
  for (const [i, c] of initContainers.entries()) {
    if (!c.resourcesPolicy) continue;
    const at = `spec[${i}].resourcesPolicy`;
    if (c.restartPolicy !== 'Always')
      out.push(
        invalid(
          at,
          goResourcesPolicy(c.resourcesPolicy),
          'resourcesPolicy is only supported for containers with RestartPolicy Always',
        ),
      );
    out.push(...resourcesPolicyErrors(c, at));
  }
  for (const [i, c] of containers.entries()) {
    if (c.podInjectPolicy !== 'BeforeAppContainer' && c.podInjectPolicy !== 'AfterAppContainer')
      out.push(
        invalid('spec.container.podInjectPolicy', c.podInjectPolicy ?? '', 'unsupported pod inject policy'),
      );
    const share = c.shareVolumePolicy?.type;
    if (share !== 'enabled' && share !== 'disabled')
      out.push(
        invalid(
          'spec.container.shareVolumePolicy',
          goShareVolumePolicy(c),
          'unsupported share volume policy',
        ),
      );
    out.push(...transferEnvErrors(c.transferEnv, `spec[${i}].transferEnv`));
    if (c.resourcesPolicy) out.push(...resourcesPolicyErrors(c, `spec[${i}].resourcesPolicy`));
  }
  // As upstream: a pod of these containers (a placeholder app container when there is none).
  const podContainers: Container[] = containers.length
    ? containers.map(coreContainer)
    : [{ name: 'test', image: 'busybox', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }];
  const pod = {
    spec: {
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      initContainers: initContainers.map(coreContainer),
      containers: podContainers,
      volumes,
      terminationGracePeriodSeconds: 30,
    },
  };
  for (const e of podTemplateErrors(pod, '')) {
    // podTemplateErrors names paths under `<template>.spec`; the fake pod's are `spec…`.
    out.push({ ...e, field: e.field.replace(/^\./, '') });
  }
  return out;
}
