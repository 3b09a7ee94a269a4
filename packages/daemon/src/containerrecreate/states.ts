import {
  type ContainerRecreateRequest,
  type ContainerRecreateRequestSyncContainerStatus,
  type ContainerRecreateState,
  CRR_SYNC_CONTAINER_STATUSES_ANNOTATION,
} from '@kruise/api';

/** The newest CRI container of one name in the pod, as the executor sees it. */
export interface NodeContainer {
  /** `<runtime>://<id>` */
  containerID: string;
  restartCount: number;
  exited: boolean;
  /** Epoch milliseconds (0 when not started). */
  startedAtMs: number;
}

/** Order in which a pod's requests are taken: Recreating first, then Pending, then new. */
const PHASE_WEIGHT: Record<string, number> = { Completed: 0, Recreating: 1, Pending: 2, '': 3 };

/**
 * The request to work on for a pod, and the new ones to mark Pending: the lowest phase weight,
 * then the oldest; deleting and completed requests are skipped.
 */
export function pickRequest<T extends ContainerRecreateRequest>(crrs: T[]): { current?: T; waiting: T[] } {
  const live = crrs
    .filter((c) => !c.metadata?.deletionTimestamp && c.status?.phase !== 'Completed')
    .sort(
      (a, b) =>
        (PHASE_WEIGHT[a.status?.phase ?? ''] ?? 3) - (PHASE_WEIGHT[b.status?.phase ?? ''] ?? 3) ||
        (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? '') ||
        (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
    );
  const [current, ...rest] = live;
  return { current, waiting: rest.filter((c) => !c.status?.phase) };
}

/** The `sync-container-statuses` annotation, parsed (empty when absent or malformed). */
export function syncedStatuses(text: string | undefined): ContainerRecreateRequestSyncContainerStatus[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/**
 * Each container's next state, upstream's table (the first matching rule applies): finished stays;
 * missing on the node → Pending; exited → Recreating; forceRecreate not yet killed → Pending;
 * replaced (other ID or higher restart count) → Recreating, Succeeded once the synced status shows
 * it ready with the same ID for longer than minStartedSeconds; otherwise Pending.
 * `killed` names containers this daemon already stopped for the request (survives a lost write).
 * Also returns when a Recreating container will have run long enough (epoch ms), if any.
 */
export function nextStates(
  crr: ContainerRecreateRequest,
  onNode: Map<string, NodeContainer>,
  killed: Set<string>,
  now: number,
): { states: ContainerRecreateState[]; recheckAt?: number } {
  const previous = new Map((crr.status?.containerRecreateStates ?? []).map((s) => [s.name, s]));
  const synced = syncedStatuses(crr.metadata?.annotations?.[CRR_SYNC_CONTAINER_STATUSES_ANNOTATION]);
  const minStartedMs = (crr.spec?.strategy?.minStartedSeconds ?? 0) * 1000;
  let recheckAt: number | undefined;
  const states = (crr.spec?.containers ?? []).map((c): ContainerRecreateState => {
    const prev = previous.get(c.name);
    const isKilled = !!prev?.isKilled || killed.has(c.name);
    const base = { name: c.name, ...(isKilled ? { isKilled: true } : {}) };
    if (prev && (prev.phase === 'Succeeded' || prev.phase === 'Failed')) return prev;
    const current = onNode.get(c.name);
    if (!current) return { ...base, phase: 'Pending', message: 'not found container on Node' };
    if (current.exited) return { ...base, phase: 'Recreating' };
    if (crr.spec?.strategy?.forceRecreate && !isKilled) return { ...base, phase: 'Pending' };
    const context = c.statusContext;
    if (current.containerID !== context?.containerID || current.restartCount > (context?.restartCount ?? 0)) {
      const s = synced.find((x) => x.name === c.name);
      if (s?.containerID === current.containerID && s.ready) {
        const enoughAt = current.startedAtMs + minStartedMs;
        if (now > enoughAt || minStartedMs === 0) return { ...base, phase: 'Succeeded' };
        recheckAt = Math.min(recheckAt ?? Number.POSITIVE_INFINITY, enoughAt + 1);
      }
      return { ...base, phase: 'Recreating' };
    }
    return { ...base, phase: 'Pending' };
  });
  return { states, ...(recheckAt !== undefined ? { recheckAt } : {}) };
}
