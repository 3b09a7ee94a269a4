import { isDeepStrictEqual } from 'node:util';
import type { SidecarSet } from '@kruise/api';
import { type FieldError, invalid } from '../field-errors.ts';
import { selectorsOverlap } from '../selector-overlap.ts';

/**
 * Upstream's conflict checks between SidecarSets: on update, a container's upgradeType may not
 * change and no container may be added (validateSidecarContainerConflict); against the other
 * SidecarSets that can select the same pods, no container name twice, no volume of the same name
 * that differs, no pod annotation patched by two where either overwrites (validateSidecarConflict).
 */

/** The update's container changes upstream refuses. */
export function containerUpdateErrors(set: SidecarSet, old: SidecarSet): FieldError[] {
  const oldType = new Map(
    (old.spec?.containers ?? []).map((c) => [c.name, c.upgradeStrategy?.upgradeType ?? '']),
  );
  const out: FieldError[] = [];
  for (const c of set.spec?.containers ?? []) {
    const before = oldType.get(c.name);
    if (before === undefined)
      out.push(invalid('spec.containers.name', c.name, `container ${c.name} is not found`));
    else if (before !== '' && (c.upgradeStrategy?.upgradeType ?? '') !== before)
      out.push(
        invalid(
          'spec.containers.upgradeStrategy.upgradeType',
          c.name,
          `container ${c.name} upgradeType is immutable`,
        ),
      );
  }
  return out;
}

/** Whether two SidecarSets may select pods of the same namespace (no namespaceSelector: every one). */
function namespacesOverlap(a: SidecarSet, b: SidecarSet): boolean {
  const x = a.spec?.namespaceSelector;
  const y = b.spec?.namespaceSelector;
  return !x || !y || selectorsOverlap(x, y);
}

/** Whether two SidecarSets may inject the same pods (upstream treats a missing selector as `{}`). */
export function sidecarSetsOverlap(a: SidecarSet, b: SidecarSet): boolean {
  return namespacesOverlap(a, b) && selectorsOverlap(a.spec?.selector ?? {}, b.spec?.selector ?? {});
}

/** The conflicts of `set` with the other SidecarSets of the cluster (`all`, which may include it). */
export function sidecarSetConflictErrors(set: SidecarSet, all: SidecarSet[]): FieldError[] {
  const initContainers = new Map<string, SidecarSet>();
  const containers = new Map<string, SidecarSet>();
  const volumes = new Map<string, SidecarSet>();
  const annotations = new Map<string, { set: string; policy: string }>();
  for (const other of all) {
    if (other.metadata?.name === set.metadata?.name || !sidecarSetsOverlap(set, other)) continue;
    for (const c of other.spec?.initContainers ?? []) initContainers.set(c.name, other);
    for (const c of other.spec?.containers ?? []) containers.set(c.name, other);
    for (const v of other.spec?.volumes ?? []) volumes.set(v.name, other);
    for (const patch of other.spec?.patchPodMetadata ?? []) {
      if (patch.patchPolicy === 'Retain') continue;
      for (const key of Object.keys(patch.annotations ?? {}))
        annotations.set(key, { set: other.metadata?.name ?? '', policy: patch.patchPolicy ?? '' });
    }
  }
  const out: FieldError[] = [];
  const spec = set.spec;
  for (const [list, seen] of [
    [spec?.initContainers ?? [], initContainers],
    [spec?.containers ?? [], containers],
  ] as const)
    for (const c of list) {
      const other = seen.get(c.name);
      if (other)
        out.push(
          invalid('spec.containers', c.name, `container ${c.name} already exist in ${other.metadata?.name}`),
        );
    }
  for (const v of spec?.volumes ?? []) {
    const other = volumes.get(v.name);
    if (!other) continue;
    const theirs = other.spec?.volumes?.find((o) => o.name === v.name);
    if (!isDeepStrictEqual(v, theirs))
      out.push(
        invalid(
          'spec.volumes',
          v.name,
          `volume ${v.name} is in conflict with sidecarset ${other.metadata?.name}`,
        ),
      );
  }
  for (const patch of spec?.patchPodMetadata ?? []) {
    if (patch.patchPolicy === 'Retain') continue;
    for (const key of Object.keys(patch.annotations ?? {})) {
      const other = annotations.get(key);
      if (other && (patch.patchPolicy === 'Overwrite' || other.policy === 'Overwrite'))
        out.push(
          invalid(
            'spec.patchPodMetadata',
            key,
            `annotation ${key} is in conflict with sidecarset ${other.set}`,
          ),
        );
    }
  }
  return out;
}
