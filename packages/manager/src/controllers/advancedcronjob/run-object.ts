import type { AdvancedCronJob, ObjectReference } from '@kruise/api';
import { zoneOffsetMs } from '@kruise/kube-compat';
import type { KubeObject } from '@kruise/runtime';
import { type CronJobKind, jobApiVersion } from './job-kinds.ts';

/** The annotation a run carries its scheduled time in (RFC 3339), as upstream names it. */
export const SCHEDULED_TIME_ANNOTATION = 'apps.kruise.io/scheduled-at';

const two = (n: number) => String(n).padStart(2, '0');

/**
 * Go's `t.Format(time.RFC3339)` of a time in `zone` (`…Z` in UTC, else `…+08:00`); the process's
 * zone by default, where upstream's times are.
 */
export function localRfc3339(ms: number, zone?: string): string {
  const offset = zoneOffsetMs(zone, ms);
  const d = new Date(Math.floor(ms / 1000) * 1000 + offset);
  const wall = `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  if (offset === 0) return `${wall}Z`;
  const minutes = Math.abs(offset) / 60_000;
  return `${wall}${offset < 0 ? '-' : '+'}${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`;
}

/** A run's scheduled time from its annotation (undefined when absent or unreadable). */
export function scheduledTimeOf(job: KubeObject): number | undefined {
  const raw = job.metadata?.annotations?.[SCHEDULED_TIME_ANNOTATION];
  if (!raw) return undefined;
  const t = Date.parse(raw);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * The run of `acj` for the start time `scheduled`, as upstream builds it: named
 * `<acj>-<scheduled unix seconds>` (one name per start time, so it is never created twice), the
 * template's labels and annotations plus the scheduled time, the template's spec, and the
 * AdvancedCronJob as controller owner.
 */
export function runObject(acj: AdvancedCronJob, kind: CronJobKind, scheduled: number): KubeObject {
  const template = kind.template(acj.spec!) ?? {};
  return {
    apiVersion: jobApiVersion(kind),
    kind: kind.kind,
    metadata: {
      name: `${acj.metadata?.name}-${Math.floor(scheduled / 1000)}`,
      namespace: acj.metadata?.namespace,
      labels: { ...template.metadata?.labels },
      annotations: {
        ...template.metadata?.annotations,
        [SCHEDULED_TIME_ANNOTATION]: localRfc3339(scheduled),
      },
      ownerReferences: [
        {
          apiVersion: 'apps.kruise.io/v1beta1',
          kind: 'AdvancedCronJob',
          name: acj.metadata?.name ?? '',
          uid: acj.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}

/** An active run as `status.active` lists it (client-go's GetReference). */
export function runReference(kind: CronJobKind, job: KubeObject): ObjectReference {
  return {
    kind: kind.kind,
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    apiVersion: jobApiVersion(kind),
    resourceVersion: job.metadata?.resourceVersion,
  };
}
