import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  barrierEnv,
  CONTAINER_LAUNCH_PRIORITY_ANNOTATION,
  CONTAINER_LAUNCH_PRIORITY_ENV,
} from '../../workload/launch-priority.ts';

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** A pod the webhook cannot work with because of what the user wrote (answered 400, where upstream answers 500). */
export class BadPodError extends Error {}

/** apiserver's SimpleNameGenerator: generateName (cut to 58 characters) plus 5 random characters. */
export function generateName(base: string, random: () => number = Math.random): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_CHARS[Math.floor(random() * NAME_CHARS.length)];
  return `${base.slice(0, 58)}${suffix}`;
}

/** The containers' priorities from KRUISE_CONTAINER_PRIORITY, or undefined when they are all equal. */
function envPriorities(pod: Pod): number[] | undefined {
  let nonZero = false;
  const priorities = (pod.spec?.containers ?? []).map((c) => {
    let p = 0;
    for (const e of c.env ?? []) {
      if (e.name !== CONTAINER_LAUNCH_PRIORITY_ENV) continue;
      const text = e.value ?? '';
      if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
        throw new BadPodError(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
      p = Number(text);
      if (p !== 0) nonZero = true;
    }
    return p;
  });
  if (!nonZero || priorities.every((p) => p === priorities[0])) return undefined;
  return priorities;
}

/**
 * Container launch priority (upstream's containerLaunchPriorityInitialization): for a pod with more
 * than one container and either annotation `apps.kruise.io/container-launch-priority: Ordered`
 * (priorities 0, −1, −2 … in list order) or differing KRUISE_CONTAINER_PRIORITY values, every
 * container gets the KRUISE_CONTAINER_BARRIER env of its priority (ConfigMap `<pod>-barrier`),
 * the pod being named now when it only has generateName. Returns whether the pod changed.
 * @throws BadPodError when a KRUISE_CONTAINER_PRIORITY value is not an integer (upstream's Atoi error).
 */
export function injectLaunchPriority(pod: Pod, random: () => number = Math.random): boolean {
  const containers = pod.spec?.containers ?? [];
  if (containers.length <= 1) return false;
  const priorities =
    pod.metadata?.annotations?.[CONTAINER_LAUNCH_PRIORITY_ANNOTATION] === 'Ordered'
      ? containers.map((_, i) => -i)
      : envPriorities(pod);
  if (!priorities) return false;
  pod.metadata ??= {};
  if (!pod.metadata.name && pod.metadata.generateName)
    pod.metadata.name = generateName(pod.metadata.generateName, random);
  for (const [i, c] of containers.entries())
    c.env = [...(c.env ?? []), barrierEnv(priorities[i]!, pod.metadata.name ?? '')];
  return true;
}
