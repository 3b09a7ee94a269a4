import type { ImageSpec, ImageTagSpec, ImageTagStatus, NodeImage, ObjectReference } from '@kruise/api';
import type { PullWorker } from './pull-worker.ts';
import type { DesiredTag } from './status.ts';

/** Starts the worker of one tag version. */
export type StartWorker = (image: string, spec: ImageSpec, tag: ImageTagSpec) => PullWorker;

const workerKey = (image: string, tag: string) => `${image}\u0000${tag}`;

/** The message of a pull that was cancelled because the daemon stopped. */
export const STOPPED_MESSAGE = 'kruise-daemon stopped; the pull resumes when it restarts';

/**
 * The pull workers of one NodeImage: `sync` compares the spec with the running workers — it
 * starts one per tag version the spec asks for, stops those whose tag left the spec or whose
 * version changed, and keeps (without pulling again) a version the status already reports as
 * finished. `snapshot` is what the status is built from.
 */
export class WorkerSet {
  private readonly startWorker: StartWorker;
  private readonly workers = new Map<string, PullWorker>();
  private readonly kept = new Map<string, ImageTagStatus>();
  private spec: NonNullable<NodeImage['spec']> = {};

  constructor(startWorker: StartWorker) {
    this.startWorker = startWorker;
  }

  /** Brings the workers in line with `ni` (undefined: the NodeImage is gone, stop everything). */
  sync(ni: NodeImage | undefined): void {
    this.spec = ni?.spec ?? {};
    const wanted = new Set<string>();
    for (const [name, image] of Object.entries(this.spec.images ?? {})) {
      for (const tag of image.tags ?? []) {
        const key = workerKey(name, tag.tag);
        wanted.add(key);
        const version = tag.version ?? 0;
        const existing = this.workers.get(key);
        if (existing && (existing.tag.version ?? 0) === version) continue;
        existing?.stop();
        this.workers.delete(key);
        const reported = ni?.status?.imageStatuses?.[name]?.tags?.find(
          (t) => t.tag === tag.tag && (t.version ?? 0) === version,
        );
        if (reported?.completionTime) {
          this.kept.set(key, reported);
          continue;
        }
        this.kept.delete(key);
        this.workers.set(key, this.startWorker(name, image, tag));
      }
    }
    for (const [key, worker] of this.workers) {
      if (wanted.has(key)) continue;
      worker.stop();
      this.workers.delete(key);
    }
    for (const key of this.kept.keys()) if (!wanted.has(key)) this.kept.delete(key);
  }

  /** Every tag the last synced spec asks for, with what its worker or kept record reports. */
  snapshot(): DesiredTag[] {
    const out: DesiredTag[] = [];
    for (const [image, spec] of Object.entries(this.spec.images ?? {}))
      for (const { tag } of spec.tags ?? []) {
        const key = workerKey(image, tag);
        out.push({ image, tag, status: this.workers.get(key)?.current ?? this.kept.get(key) });
      }
    return out;
  }

  /** Pulls in flight or waiting for a slot. */
  get active(): number {
    let n = 0;
    for (const w of this.workers.values()) if (!w.finished) n++;
    return n;
  }

  /** The owners (pull jobs) of a tag in the last synced spec. */
  owners(image: string, tag: string): ObjectReference[] {
    return this.spec.images?.[image]?.tags?.find((t) => t.tag === tag)?.ownerReferences ?? [];
  }

  /** The owners of every tag whose image names the pull secret `name`. */
  ownersNamingSecret(name: string): ObjectReference[] {
    const out: ObjectReference[] = [];
    for (const spec of Object.values(this.spec.images ?? {}))
      if ((spec.pullSecrets ?? []).some((s) => s.name === name))
        for (const t of spec.tags ?? []) out.push(...(t.ownerReferences ?? []));
    return out;
  }

  /**
   * Stops every worker: a pull in flight is cancelled and reported as Waiting (it resumes when the
   * daemon restarts), so no tag stays Pulling; finished statuses are kept for the final write.
   */
  stop(): void {
    for (const [key, w] of this.workers) {
      this.kept.set(
        key,
        w.finished ? w.current : { ...w.current, phase: 'Waiting', progress: 0, message: STOPPED_MESSAGE },
      );
      w.stop();
    }
    this.workers.clear();
  }
}
