import type { Container, ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';

/** Every container of the pod by name, init containers included. */
export function podContainers(pod: Pod): Map<string, Container> {
  const out = new Map<string, Container>();
  for (const c of pod.spec?.initContainers ?? []) out.set(c.name, c);
  for (const c of pod.spec?.containers ?? []) out.set(c.name, c);
  return out;
}

/** Every container status of the pod by name, init containers included. */
export function podContainerStatuses(pod: Pod): Map<string, ContainerStatus> {
  const out = new Map<string, ContainerStatus>();
  for (const s of pod.status?.initContainerStatuses ?? []) out.set(s.name, s);
  for (const s of pod.status?.containerStatuses ?? []) out.set(s.name, s);
  return out;
}
