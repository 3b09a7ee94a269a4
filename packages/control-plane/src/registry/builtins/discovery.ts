import { AGE_COLUMN, column } from '../columns.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { builtin } from './define.ts';

/** kubectl's list of at most three values, `+ N more...` beyond, `<unset>` for none. */
function firstThree(values: unknown[]): string {
  if (!values.length) return '<unset>';
  const shown = values.slice(0, 3).join(',');
  return values.length > 3 ? `${shown} + ${values.length - 3} more...` : shown;
}

/** `discovery.k8s.io/v1` EndpointSlices, written by the EndpointSlice controller (or by users). */
export const DISCOVERY_RESOURCES: ResourceType[] = [
  builtin({
    group: 'discovery.k8s.io',
    version: 'v1',
    kind: 'EndpointSlice',
    plural: 'endpointslices',
    namespaced: true,
    columns: [
      column('AddressType', (o) => o.addressType ?? ''),
      column('Ports', (o) => firstThree((o.ports ?? []).map((p: KubeObject) => p?.port ?? ''))),
      column('Endpoints', (o) =>
        firstThree((o.endpoints ?? []).flatMap((e: KubeObject) => e?.addresses ?? [])),
      ),
      AGE_COLUMN,
    ],
    defaults: (o) => {
      for (const p of Array.isArray(o.ports) ? o.ports : [])
        if (p && typeof p === 'object') {
          p.name ??= '';
          p.protocol ??= 'TCP';
        }
    },
  }),
];
