import type { ObjectReference } from '@kruise/api';
import type { EventRecorder } from '@kruise/runtime/events/recorder';
import type { KubeObject } from '@kruise/runtime/kube/client';

/** The NodeImage a puller follows, as an event's subject. */
export type NodeImageSubject = Pick<KubeObject, 'metadata'>;

/** The outcome of one finished pull. */
export interface PullOutcome {
  image: string;
  tag: string;
  ok: boolean;
  seconds: number;
  message: string;
}

/** The object an owner reference names (a pull job), as an event's subject. */
const ownerObject = (o: ObjectReference) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  metadata: { name: o.name, namespace: o.namespace, uid: o.uid },
});

const nodeImageObject = (ni: NodeImageSubject) => ({
  ...ni,
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'NodeImage',
});

/**
 * The image puller's events, on the NodeImage and on the jobs that own a tag: `PullImageSucceed`,
 * `PullImageFailed` (also on the owners) and `InvalidPullSecret` (also on the owners).
 */
export class PullEvents {
  private readonly recorder: EventRecorder;

  constructor(recorder: EventRecorder) {
    this.recorder = recorder;
  }

  /** A pull finished: success on the NodeImage; failure on the NodeImage and on the tag's owners. */
  pulled(ni: NodeImageSubject, owners: readonly ObjectReference[], r: PullOutcome): void {
    const ref = `${r.image}:${r.tag}`;
    if (r.ok) {
      this.recorder.event(
        nodeImageObject(ni),
        'Normal',
        'PullImageSucceed',
        `Image ${ref} has been pulled in ${r.seconds.toFixed(1)}s`,
      );
      return;
    }
    const message = `Failed to pull image ${ref}: ${r.message}`;
    this.recorder.event(nodeImageObject(ni), 'Warning', 'PullImageFailed', message);
    for (const owner of owners)
      this.recorder.event(ownerObject(owner), 'Warning', 'PullImageFailed', message);
  }

  /**
   * A pull secret was skipped (its name and why — never its contents); the pull goes on without
   * it, as kubelet's does. Told on the NodeImage and, once each, on the jobs that named it.
   */
  invalidSecret(
    ni: NodeImageSubject,
    owners: readonly ObjectReference[],
    image: string,
    secretKey: string,
    reason: string,
  ): void {
    const message = `Ignoring pull secret ${secretKey} for image ${image}: ${reason}`;
    this.recorder.event(nodeImageObject(ni), 'Warning', 'InvalidPullSecret', message);
    const seen = new Set<string>();
    for (const o of owners) {
      if (seen.has(o.uid ?? '')) continue;
      seen.add(o.uid ?? '');
      this.recorder.event(ownerObject(o), 'Warning', 'InvalidPullSecret', message);
    }
  }
}
