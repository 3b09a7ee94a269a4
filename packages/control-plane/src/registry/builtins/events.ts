import { age, column } from '../columns.ts';
import type { ResourceType } from '../types.ts';
import { builtin } from './define.ts';

/** `events.k8s.io/v1` Events: what controllers report. */
export const EVENT_RESOURCES: ResourceType[] = [
  builtin({
    group: 'events.k8s.io',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    columns: [
      column('Last Seen', (o, now) =>
        age(o.deprecatedLastTimestamp ?? o.eventTime ?? o.metadata?.creationTimestamp, now),
      ),
      column('Type', (o) => o.type ?? ''),
      column('Reason', (o) => o.reason ?? ''),
      column('Object', (o) => `${(o.regarding?.kind ?? '').toLowerCase()}/${o.regarding?.name ?? ''}`),
      column('Note', (o) => o.note ?? ''),
    ],
  }),
];
