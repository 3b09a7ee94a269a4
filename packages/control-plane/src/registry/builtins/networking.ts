import { AGE_COLUMN, column } from '../columns.ts';
import type { ResourceType } from '../types.ts';
import { builtin } from './define.ts';

/**
 * `networking.k8s.io/v1` Ingresses, stored only (no controller routes traffic): enough for admission
 * webhooks on them (deletion protection) and for kubectl.
 */
export const NETWORKING_RESOURCES: ResourceType[] = [
  builtin({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    namespaced: true,
    shortNames: ['ing'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [
      column('Class', (o) => o.spec?.ingressClassName ?? '<none>'),
      column('Hosts', (o) => {
        const hosts = (o.spec?.rules ?? []).map((r: { host?: string }) => r?.host || '*');
        return hosts.length ? hosts.join(',') : '*';
      }),
      column('Address', () => ''),
      column('Ports', (o) => ((o.spec?.tls ?? []).length ? '80, 443' : '80')),
      AGE_COLUMN,
    ],
  }),
];
