import type { SidecarSet } from '@kruise/api';
import { goMarshal } from '@kruise/kube-compat';
import {
  SIDECARSET_HASH_ANNOTATION,
  SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
  SIDECARSET_INJECTED_LIST_ANNOTATION,
} from './keys.ts';
import { sidecarNames } from './native.ts';

/** What a pod records per SidecarSet in its hash annotations (upstream's SidecarSetUpgradeSpec). */
export interface SidecarSetUpgradeSpec {
  updateTimestamp?: string;
  hash?: string;
  sidecarSetName?: string;
  sidecarList?: string[];
  controllerRevision?: string;
}

interface Annotated {
  metadata?: { annotations?: Record<string, string> };
}

/**
 * The pod's hash annotation `key` as a map SidecarSet → upgrade spec; the older form (SidecarSet →
 * hash string) is read too. Unreadable values count as absent.
 */
export function podUpgradeSpecs(pod: Annotated, key: string): Record<string, SidecarSetUpgradeSpec> {
  const raw = pod.metadata?.annotations?.[key];
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: Record<string, SidecarSetUpgradeSpec> = {};
    for (const [name, v] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof v === 'string') out[name] = { hash: v };
      else if (v && typeof v === 'object') out[name] = v as SidecarSetUpgradeSpec;
    }
    return out;
  } catch {
    return {};
  }
}

/** The SidecarSet hash the pod was injected or last upgraded with (empty when none). */
export function podSidecarSetHash(pod: Annotated, sidecarSetName: string): string {
  return podUpgradeSpecs(pod, SIDECARSET_HASH_ANNOTATION)[sidecarSetName]?.hash ?? '';
}

/** The SidecarSet hash-without-image the pod was injected with (empty when none). */
export function podSidecarSetHashWithoutImage(pod: Annotated, sidecarSetName: string): string {
  return podUpgradeSpecs(pod, SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION)[sidecarSetName]?.hash ?? '';
}

/** The ControllerRevision name the pod's sidecars of this SidecarSet came from (empty when unknown). */
export function podSidecarSetRevision(pod: Annotated, sidecarSetName: string): string {
  return podUpgradeSpecs(pod, SIDECARSET_HASH_ANNOTATION)[sidecarSetName]?.controllerRevision ?? '';
}

/** Whether the pod's sidecars are at the SidecarSet's current hash. */
export function isPodSidecarUpdated(sidecarSet: SidecarSet, pod: Annotated): boolean {
  return (
    (sidecarSet.metadata?.annotations?.[SIDECARSET_HASH_ANNOTATION] ?? '') ===
    podSidecarSetHash(pod, sidecarSet.metadata?.name ?? '')
  );
}

/** Whether the SidecarSet is in the pod's `kruise.io/sidecarset-injected-list`. */
export function isInjectedWith(pod: Annotated, sidecarSetName: string): boolean {
  const list = pod.metadata?.annotations?.[SIDECARSET_INJECTED_LIST_ANNOTATION] ?? '';
  return list !== '' && list.split(',').includes(sidecarSetName);
}

/** RFC 3339 at second precision, as metav1.Time marshals. */
const metaTime = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;

function writeSpec(
  annotations: Record<string, string>,
  key: string,
  sidecarSet: SidecarSet,
  hash: string,
  revision: string | undefined,
  now: Date,
): void {
  const specs = podUpgradeSpecs({ metadata: { annotations } }, key);
  const name = sidecarSet.metadata?.name ?? '';
  specs[name] = {
    updateTimestamp: metaTime(now),
    hash,
    sidecarSetName: name,
    sidecarList: sidecarNames(sidecarSet),
    ...(revision ? { controllerRevision: revision } : {}),
  };
  // Go marshals the map with sorted keys and each spec in its struct's field order.
  const ordered = Object.fromEntries(
    Object.keys(specs)
      .sort()
      .map((k) => {
        const s = specs[k]!;
        return [
          k,
          {
            updateTimestamp: s.updateTimestamp ?? null,
            hash: s.hash ?? '',
            sidecarSetName: s.sidecarSetName ?? '',
            sidecarList: s.sidecarList ?? null,
            ...(s.controllerRevision ? { controllerRevision: s.controllerRevision } : {}),
          },
        ];
      }),
  );
  annotations[key] = goMarshal(ordered);
}

/**
 * Records in the pod's annotations that its sidecars are at the SidecarSet's current hash (and, when
 * `withoutImage`, its hash-without-image, which names no revision: at injection), the revision
 * being `revision` (default: the SidecarSet's `status.latestRevision`). Mutates `annotations`.
 */
export function writePodSidecarSetHash(
  annotations: Record<string, string>,
  sidecarSet: SidecarSet,
  opts: { withoutImage?: boolean; revision?: string; now?: Date } = {},
): void {
  const now = opts.now ?? new Date();
  const revision = opts.revision ?? sidecarSet.status?.latestRevision;
  const a = sidecarSet.metadata?.annotations ?? {};
  writeSpec(
    annotations,
    SIDECARSET_HASH_ANNOTATION,
    sidecarSet,
    a[SIDECARSET_HASH_ANNOTATION] ?? '',
    revision,
    now,
  );
  if (opts.withoutImage)
    writeSpec(
      annotations,
      SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION,
      sidecarSet,
      a[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] ?? '',
      undefined,
      now,
    );
}
