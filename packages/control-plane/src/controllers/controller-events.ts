import { nowRFC3339 } from '../api/context.ts';
import type { ObjectService } from '../api/objects.ts';
import type { UserInfo } from '../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';

/** Where an Event comes from: kube-controller-manager's component name for it. */
export type EventSource =
  | 'replicaset-controller'
  | 'deployment-controller'
  | 'statefulset-controller'
  | 'daemonset-controller'
  | 'job-controller';

/** client-go's spam filter: a burst of 25 Events per object, then one more every 5 minutes. */
const SPAM_BURST = 25;
const SPAM_REFILL_MS = 300_000;

/**
 * A core/v1 Event about `obj` as kube-controller-manager's recorder writes it (what
 * `kubectl describe` and `kubectl events` show).
 */
export function controllerEvent(
  obj: KubeObject,
  source: EventSource,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
): KubeObject {
  const now = nowRFC3339();
  const nanos = BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${obj.metadata?.name}.${nanos.toString(16)}`, namespace: obj.metadata?.namespace },
    involvedObject: {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata?.namespace,
      name: obj.metadata?.name,
      uid: obj.metadata?.uid,
      resourceVersion: obj.metadata?.resourceVersion,
    },
    reason,
    message,
    type,
    source: { component: source },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: source,
    reportingInstance: '',
  };
}

/**
 * Records Events as client-go's recorder does, spam filter included (per object: a burst of 25,
 * then one every 5 minutes), without ever making the controller wait or fail for them.
 */
export class EventRecorder {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  private readonly objects: ObjectService;
  private readonly eventType: ResourceType;
  private readonly source: EventSource;
  private readonly user: UserInfo;

  constructor(objects: ObjectService, eventType: ResourceType, source: EventSource, user: UserInfo) {
    this.objects = objects;
    this.eventType = eventType;
    this.source = source;
    this.user = user;
  }

  /** Records one Event about `obj` (dropped when the object's bucket is empty). */
  record(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const uid = String(obj.metadata?.uid ?? `${obj.metadata?.namespace}/${obj.metadata?.name}`);
    const now = Date.now();
    const bucket = this.buckets.get(uid) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + (now - bucket.at) / SPAM_REFILL_MS);
    bucket.at = now;
    this.buckets.set(uid, bucket);
    if (bucket.tokens < 1) return;
    bucket.tokens--;
    const event = controllerEvent(obj, this.source, type, reason, message);
    this.objects
      .create(this.eventType, obj.metadata?.namespace ?? 'default', event, { user: this.user })
      .catch(() => {
        // an Event that cannot be written is dropped, as the recorder drops it
      });
  }

  /** Forgets an object's bucket (it was deleted). */
  forget(uid: string | undefined): void {
    if (uid) this.buckets.delete(uid);
  }
}
