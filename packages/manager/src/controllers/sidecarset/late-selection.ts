import type { SidecarSet } from '@kruise/api';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SIDECARSET_SELECTION_CHANGED_ANNOTATION } from '../../workload/sidecarset/index.ts';

/**
 * Why a selected pod may rightly lack a SidecarSet's sidecars although it was created after the
 * SidecarSet: injection happens at creation only, so a pod that came into the selection later —
 * its labels changed, its namespace's labels changed, or the SidecarSet's selection changed (the
 * time its webhook stamps) — was never meant to be injected. The first two are seen in watch
 * events and kept in memory (forgotten with the pod, or when the manager restarts).
 */
export class LateSelection {
  /** SidecarSets each pod (by UID) came into the selection of after its creation. */
  private readonly pods = new Map<string, Set<string>>();
  /** When each namespace's labels last changed (ms). */
  private readonly namespaces = new Map<string, number>();

  /** Records that the pod came into the SidecarSet's selection by a change of its labels. */
  podSelected(uid: string | undefined, sidecarSet: string): void {
    if (!uid) return;
    const sets = this.pods.get(uid) ?? new Set<string>();
    sets.add(sidecarSet);
    this.pods.set(uid, sets);
  }

  /** Forgets a deleted pod. */
  forgetPod(uid: string | undefined): void {
    if (uid) this.pods.delete(uid);
  }

  /** Records that a namespace's labels changed at `at` (ms). */
  namespaceRelabelled(name: string | undefined, at: number): void {
    if (name) this.namespaces.set(name, at);
  }

  /** Forgets a deleted namespace. */
  forgetNamespace(name: string | undefined): void {
    if (name) this.namespaces.delete(name);
  }

  /** Whether the pod came into the SidecarSet's selection after it was created. */
  selectedLate(sidecarSet: SidecarSet, pod: Pod): boolean {
    const name = sidecarSet.metadata?.name ?? '';
    if (this.pods.get(pod.metadata?.uid ?? '')?.has(name)) return true;
    const created = Date.parse(pod.metadata?.creationTimestamp ?? '');
    const since = Math.max(
      Date.parse(sidecarSet.metadata?.creationTimestamp ?? '') || 0,
      Date.parse(sidecarSet.metadata?.annotations?.[SIDECARSET_SELECTION_CHANGED_ANNOTATION] ?? '') || 0,
      (sidecarSet.spec?.namespaceSelector && this.namespaces.get(pod.metadata?.namespace || 'default')) || 0,
    );
    return !(created > since);
  }
}
