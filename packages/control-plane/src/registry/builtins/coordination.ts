import { AGE_COLUMN, column } from '../columns.ts';
import type { ResourceType } from '../types.ts';
import { builtin } from './define.ts';

/** `coordination.k8s.io/v1` Leases: leader election and node heartbeats. */
export const COORDINATION_RESOURCES: ResourceType[] = [
  builtin({
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
    columns: [column('Holder', (o) => o.spec?.holderIdentity ?? ''), AGE_COLUMN],
  }),
];
