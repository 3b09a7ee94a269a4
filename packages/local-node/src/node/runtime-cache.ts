import type { CriClient } from '@kruise/cri/client';
import { isCriNotFound } from '@kruise/cri/errors';
import type { Container as CriContainer } from '@kruise/cri/generated/runtime/v1/Container';
import type { ContainerStatus__Output } from '@kruise/cri/generated/runtime/v1/ContainerStatus';
import { kubeletContainerIdentity, parseKubeletContainerHash } from '@kruise/kube-compat';
import type { ComputeResources } from './container-resources.ts';
import { KubeletKeys } from './kubelet-metadata.ts';
import { nanosToRFC3339, type RuntimeContainer } from './pod-status.ts';

/** A pod's containers by name, newest attempt first. */
export type ContainerHistory = Map<string, RuntimeContainer[]>;

/** A CRI container and its status as the local node reads them back. */
export function runtimeContainerOf(c: CriContainer, status: ContainerStatus__Output): RuntimeContainer {
  const { name, attempt } = kubeletContainerIdentity(c);
  return {
    id: status.id || c.id!,
    name,
    attempt,
    state: status.state,
    startedAt: nanosToRFC3339(status.startedAt),
    finishedAt: nanosToRFC3339(status.finishedAt),
    exitCode: status.exitCode ?? 0,
    reason: status.reason ?? '',
    message: status.message ?? '',
    image: c.image?.image ?? '',
    imageRef: status.imageRef ?? '',
    hash: parseKubeletContainerHash(c.annotations?.[KubeletKeys.hash]),
    resources: readResources(c.annotations?.[KubeletKeys.resources]),
  };
}

function readResources(text: string | undefined): ComputeResources | undefined {
  try {
    return text ? (JSON.parse(text) as ComputeResources) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pods' containers as the runtime has them, cached as kubelet's PLEG cache is: per pod UID,
 * its containers as a sync last read them and the epoch they were read in. A sync whose pod's
 * containers did not change since reads nothing from the runtime (a pod update such as a
 * readiness-gate condition only recomputes the status); the relist bumps the epoch when it sees
 * them change (`invalidate`). Exited containers never change, so each is read once.
 */
export class PodRuntimeCache {
  private readonly cri: CriClient;
  private readonly views = new Map<string, { epoch: number; history: ContainerHistory }>();
  private readonly epochs = new Map<string, number>();
  /** Per pod UID: the statuses of its exited containers, which never change (read once each). */
  private readonly exited = new Map<string, Map<string, RuntimeContainer>>();

  constructor(cri: CriClient) {
    this.cri = cri;
  }

  /** Every CRI container of a pod, newest attempt first per name. */
  async containers(uid: string): Promise<ContainerHistory> {
    const { containers } = await this.cri.listContainers({ labelSelector: { [KubeletKeys.podUid]: uid } });
    const byName: ContainerHistory = new Map();
    const known = this.exited.get(uid);
    const exited = new Map<string, RuntimeContainer>();
    for (const c of containers) {
      let rc = known?.get(c.id);
      if (!rc) {
        const status = await this.statusOf(c.id);
        if (!status) continue;
        rc = runtimeContainerOf(c, status);
      }
      if (rc.state === 'CONTAINER_EXITED') exited.set(c.id, rc);
      const list = byName.get(rc.name) ?? [];
      list.push(rc);
      byName.set(rc.name, list);
    }
    for (const list of byName.values()) list.sort((a, b) => b.attempt - a.attempt);
    this.exited.set(uid, exited);
    return byName;
  }

  /**
   * One container read again (undefined when it is gone): its status, with the image it was
   * created from (a status names the image by its first tag, which may be another of its tags).
   */
  async reread(c: RuntimeContainer): Promise<RuntimeContainer | undefined> {
    const status = await this.statusOf(c.id);
    return status && runtimeContainerOf({ ...status, id: c.id, image: { image: c.image } }, status);
  }

  /** A container's status as the runtime has it now (undefined when it is gone). */
  private async statusOf(id: string): Promise<ContainerStatus__Output | undefined> {
    try {
      return (await this.cri.containerStatus(id)).status ?? undefined;
    } catch (err) {
      if (isCriNotFound(err)) return undefined;
      throw err;
    }
  }

  /** The relist saw the pod's containers change: its next sync reads the runtime again. */
  invalidate(uid: string): void {
    this.epochs.set(uid, (this.epochs.get(uid) ?? 0) + 1);
  }

  /**
   * Whether the pod's runtime view, as its last sync left it, is what a relist sees now
   * (`<id>:<state>` of each container): then the change the relist noticed is the sync's own.
   */
  viewMatches(uid: string, listed: ReadonlySet<string>): boolean {
    const view = this.views.get(uid);
    if (!view || view.epoch !== (this.epochs.get(uid) ?? 0)) return false;
    const seen = [...view.history.values()].flat();
    return seen.length === listed.size && seen.every((c) => listed.has(`${c.id}:${c.state}`));
  }

  /**
   * Takes the pod's view for a sync: the current epoch, and the containers as last read when
   * nothing changed since (undefined: read the runtime). Taken, not shared: a sync that fails
   * half-way leaves the next one to read the runtime.
   */
  take(uid: string): { epoch: number; fresh?: ContainerHistory } {
    const epoch = this.epochs.get(uid) ?? 0;
    const cached = this.views.get(uid);
    this.views.delete(uid);
    return { epoch, fresh: cached?.epoch === epoch ? cached.history : undefined };
  }

  /** Keeps what a sync read under the epoch it was read in: a change the relist saw meanwhile leaves it unused. */
  keep(uid: string, epoch: number, history: ContainerHistory): void {
    this.views.set(uid, { epoch, history });
  }

  /** Forgets a pod that is gone. */
  forget(uid: string): void {
    this.views.delete(uid);
    this.epochs.delete(uid);
    this.exited.delete(uid);
  }
}
