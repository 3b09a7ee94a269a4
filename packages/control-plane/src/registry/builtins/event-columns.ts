import { age, column } from '../columns.ts';
import type { KubeObject, TableColumn } from '../types.ts';

/** The columns `kubectl get events` prints for a core v1 Event (kube-apiserver's event printer). */
export const EVENT_COLUMNS: TableColumn[] = [
  column('Last Seen', (o, now) => age(o.lastTimestamp ?? o.eventTime ?? o.metadata?.creationTimestamp, now)),
  column('Type', (o) => o.type ?? ''),
  column('Reason', (o) => o.reason ?? ''),
  column('Object', (o) => `${(o.involvedObject?.kind ?? '').toLowerCase()}/${o.involvedObject?.name ?? ''}`),
  column('Message', (o) => o.message ?? ''),
];

/** An `events.k8s.io/v1` Event read with core v1 field names (kube-apiserver stores and prints both as one). */
function asCoreEvent(event: KubeObject): KubeObject {
  return {
    metadata: event.metadata,
    eventTime: event.eventTime,
    lastTimestamp: event.deprecatedLastTimestamp,
    type: event.type,
    reason: event.reason,
    involvedObject: event.regarding,
    message: event.note,
  };
}

/** The same columns for `events.k8s.io/v1` Events: one printer serves both groups, as upstream's. */
export const EVENTS_V1_COLUMNS: TableColumn[] = EVENT_COLUMNS.map((c) => ({
  ...c,
  cell: (obj, now) => c.cell(asCoreEvent(obj), now),
}));
