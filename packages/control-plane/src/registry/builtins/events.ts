import type { ResourceType } from '../types.ts';
import { builtin } from './define.ts';
import { EVENTS_V1_COLUMNS } from './event-columns.ts';

/** `events.k8s.io/v1` Events: what controllers report. */
export const EVENT_RESOURCES: ResourceType[] = [
  builtin({
    group: 'events.k8s.io',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    columns: EVENTS_V1_COLUMNS,
  }),
];
