import type { LinuxContainerSecurityContext } from '@kruise/cri/generated/runtime/v1/LinuxContainerSecurityContext';
import type { LinuxSandboxSecurityContext } from '@kruise/cri/generated/runtime/v1/LinuxSandboxSecurityContext';
import type { Container, SecurityContext } from 'kubernetes-types/core/v1.js';
import type { BoundPod } from './bound-pod.ts';
import { ContainerConfigError } from './container-env.ts';

/** The user an image runs as, from CRI ImageStatus: a numeric uid, or a name (none of them: root). */
export interface ImageUser {
  uid?: number;
  username?: string;
}

/**
 * kubelet's getImageUser over an ImageStatus answer: the image's uid when numeric, else its user
 * name; an image that names no user runs as root (uid 0).
 */
export function imageUserOf(image: { uid?: { value: string } | null; username?: string } | null): ImageUser {
  if (image?.uid) return { uid: Number(image.uid.value) };
  if (image?.username) return { username: image.username };
  return { uid: 0 };
}

/**
 * securitycontext.DetermineEffectiveSecurityContext: the pod's securityContext (user, group,
 * runAsNonRoot) overridden field by field by the container's.
 */
export function effectiveSecurityContext(pod: BoundPod, container: Container): SecurityContext {
  const p = pod.spec.securityContext ?? {};
  const c = container.securityContext ?? {};
  const out: SecurityContext = { ...c };
  out.runAsUser ??= p.runAsUser;
  out.runAsGroup ??= p.runAsGroup;
  out.runAsNonRoot ??= p.runAsNonRoot;
  out.seccompProfile ??= p.seccompProfile;
  return out;
}

/** kubelet's format.Pod: `name_namespace(uid)`. */
const formatPod = (pod: BoundPod) => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

/**
 * kubelet's verifyRunAsNonRoot: a container with runAsNonRoot must not run as uid 0, whether its
 * runAsUser says so or its image does; an image user that is a name cannot be verified.
 * @throws ContainerConfigError (CreateContainerConfigError) with kubelet's message.
 */
export function verifyRunAsNonRoot(pod: BoundPod, container: Container, image: ImageUser): void {
  const sc = effectiveSecurityContext(pod, container);
  if (!sc.runAsNonRoot) return;
  const where = `(pod: ${JSON.stringify(formatPod(pod))}, container: ${container.name})`;
  if (sc.runAsUser !== undefined) {
    if (sc.runAsUser === 0)
      throw new ContainerConfigError(`container's runAsUser breaks non-root policy ${where}`);
    return;
  }
  if (image.uid === 0)
    throw new ContainerConfigError(`container has runAsNonRoot and image will run as root ${where}`);
  if (image.uid === undefined && image.username)
    throw new ContainerConfigError(
      `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root ${where}`,
    );
}

/** The pod's fsGroup and supplementalGroups: the extra groups of every process in the pod. */
function supplementalGroups(pod: BoundPod): string[] {
  const sc = pod.spec.securityContext ?? {};
  const groups = [...(sc.fsGroup !== undefined ? [sc.fsGroup] : []), ...(sc.supplementalGroups ?? [])];
  return groups.map(String);
}

/**
 * kubelet's determineEffectiveSecurityContext for CRI: capabilities to add and drop, privileged,
 * the user (runAsUser, else the image's uid or user name) and group, a read-only root filesystem,
 * the pod's supplemental groups and fsGroup, no_new_privs when allowPrivilegeEscalation is false,
 * (the pod's namespaces are kubelet-metadata's).
 */
export function linuxContainerSecurityContext(
  pod: BoundPod,
  container: Container,
  image: ImageUser,
): LinuxContainerSecurityContext {
  const sc = effectiveSecurityContext(pod, container);
  const out: LinuxContainerSecurityContext = {
    privileged: sc.privileged === true,
    readonlyRootfs: sc.readOnlyRootFilesystem === true,
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    supplementalGroups: supplementalGroups(pod),
  };
  if (sc.capabilities)
    out.capabilities = {
      addCapabilities: sc.capabilities.add ?? [],
      dropCapabilities: sc.capabilities.drop ?? [],
    };
  if (sc.runAsUser !== undefined) out.runAsUser = { value: String(sc.runAsUser) };
  else if (image.uid !== undefined) out.runAsUser = { value: String(image.uid) };
  else if (image.username) out.runAsUsername = image.username;
  if (sc.runAsGroup !== undefined) out.runAsGroup = { value: String(sc.runAsGroup) };
  return out;
}

/**
 * kubelet's sandbox security context: the pod's runAsUser and runAsGroup, its supplemental groups
 * and fsGroup, privileged when any container is (the namespaces are kubelet-metadata's).
 */
export function sandboxSecurityContext(pod: BoundPod): LinuxSandboxSecurityContext {
  const sc = pod.spec.securityContext ?? {};
  const all = [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])];
  const out: LinuxSandboxSecurityContext = {
    supplementalGroups: supplementalGroups(pod),
    privileged: all.some((c) => c.securityContext?.privileged === true),
  };
  if (sc.runAsUser !== undefined) out.runAsUser = { value: String(sc.runAsUser) };
  if (sc.runAsGroup !== undefined) out.runAsGroup = { value: String(sc.runAsGroup) };
  return out;
}
