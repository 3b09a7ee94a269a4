import { parseQuantity, quantitiesEqual } from '@kruise/kube-compat';
import type { Container, Pod, PodSpec, ResourceRequirements } from 'kubernetes-types/core/v1.js';

/** Resources that may change in place (gate InPlaceWorkloadVerticalScaling). */
export const RESIZABLE_RESOURCES = new Set(['cpu', 'memory']);

/**
 * Records one `replace` of `/spec/containers/<i>/resources/{limits|requests}/<name>` into
 * `resources` (by the old template's container name).
 * @throws Error with upstream's words when the change cannot be made in place.
 */
export function recordResourceChange(
  op: { op: string; path: string; value?: unknown },
  oldSpec: PodSpec | undefined,
  resources: Record<string, ResourceRequirements>,
): void {
  const words = op.path.split('/');
  if (words.length !== 7) throw new Error(`invalid resource path: ${op.path}`);
  const idx = Number(words[3]);
  const container = oldSpec?.containers?.[idx];
  if (!/^\d+$/.test(words[3]!) || !container) throw new Error(`invalid container index: ${op.path}`);
  if (op.op === 'remove' || op.op === 'add') throw new Error('can not add or remove resources');
  if (op.value === null || op.value === undefined) throw new Error('json patch value is nil');
  if (!parseQuantity(String(op.value)))
    throw new Error('parse quantity error: quantities must match the regular expression');
  const name = words[6]!;
  if (!RESIZABLE_RESOURCES.has(name)) throw new Error(`disallowed inplace update resource: ${name}`);
  const r: ResourceRequirements = resources[container.name] ?? { limits: {}, requests: {} };
  resources[container.name] = r;
  if (words[5] === 'limits') r.limits = { ...r.limits, [name]: String(op.value) };
  else if (words[5] === 'requests') r.requests = { ...r.requests, [name]: String(op.value) };
}

type Qos = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** Kubernetes' pod QoS class from cpu and memory requests and limits. */
export function podQos(spec: PodSpec | undefined): Qos {
  const containers: Container[] = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      const q = (v: unknown) => v !== undefined && parseQuantity(String(v))?.mantissa !== 0n;
      if (q(req[r]) || q(lim[r])) any = true;
      if (!q(lim[r])) guaranteed = false;
      else if (req[r] !== undefined && !quantitiesEqual(req[r], lim[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** Sets the expected cpu/memory of the named containers in the pod spec. Mutates `pod`. */
export function applyResources(pod: Pod, expected: Record<string, ResourceRequirements>): void {
  for (const c of pod.spec?.containers ?? []) {
    const r = expected[c.name];
    if (!r) continue;
    c.resources ??= {};
    for (const field of ['limits', 'requests'] as const)
      for (const [k, v] of Object.entries(r[field] ?? {})) {
        if (!RESIZABLE_RESOURCES.has(k)) continue;
        c.resources[field] ??= {};
        c.resources[field][k] = v;
      }
  }
}

/**
 * Whether every container reports the resources its spec asks for.
 * @throws never; returns the reason as a string when not complete.
 */
export function resourcesNotUpdated(pod: Pod): string | undefined {
  const containers = new Map((pod.spec?.containers ?? []).map((c) => [c.name, c]));
  const statuses = pod.status?.containerStatuses ?? [];
  if (statuses.length !== containers.size) return 'some container status is not reported';
  const same = (a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined) => {
    const ka = Object.keys(a ?? {});
    return (
      ka.length === Object.keys(b ?? {}).length &&
      ka.every((k) => quantitiesEqual(a?.[k] as string, b?.[k] as string))
    );
  };
  for (const s of statuses) {
    const c = containers.get(s.name);
    if (
      !c ||
      !s.resources ||
      !same(c.resources?.limits, s.resources.limits) ||
      !same(c.resources?.requests, s.resources.requests)
    )
      return `container ${s.name} resources not changed`;
  }
  return undefined;
}

/** Only the cpu and memory entries of a resource list. */
function resizable(list: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(list ?? {})
      .filter(([k]) => RESIZABLE_RESOURCES.has(k))
      .map(([k, v]) => [k, String(v)]),
  );
}

/**
 * The cpu/memory requests and limits of `after`'s containers that differ from `before`'s, by
 * container name, each container's whole cpu/memory lists (what a `pods/resize` write sends).
 */
export function resourceChanges(before: Pod, after: Pod): Record<string, ResourceRequirements> {
  const old = new Map((before.spec?.containers ?? []).map((c) => [c.name, c.resources ?? {}]));
  const differs = (now: Record<string, string>, then: Record<string, unknown> | undefined) =>
    Object.entries(now).some(([k, v]) => then?.[k] === undefined || !quantitiesEqual(v, then[k] as string));
  const out: Record<string, ResourceRequirements> = {};
  for (const c of after.spec?.containers ?? []) {
    const was = old.get(c.name);
    const limits = resizable(c.resources?.limits);
    const requests = resizable(c.resources?.requests);
    if (!differs(limits, was?.limits) && !differs(requests, was?.requests)) continue;
    out[c.name] = {
      ...(Object.keys(limits).length ? { limits } : {}),
      ...(Object.keys(requests).length ? { requests } : {}),
    };
  }
  return out;
}
