import type { KubeObject, TableColumn } from './types.ts';

/** kubectl's short human duration (`5m`, `3h12m`, `12d`). */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8) return `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

/** The age of a timestamp, or `<unknown>`. */
export function age(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/** The AGE column every resource ends with. */
export const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (obj, now) => age(obj.metadata?.creationTimestamp, now),
};

/** A string column read by a function. */
export function column(
  name: string,
  cell: (obj: KubeObject, now: number) => unknown,
  type = 'string',
): TableColumn {
  return { name, type, cell };
}

/** Number of keys of a map field. */
export const countKeys = (value: unknown): number =>
  value && typeof value === 'object' ? Object.keys(value as object).length : 0;

/** A column `kubectl get -o wide` adds (priority 1). */
export function wideColumn(name: string, cell: (obj: KubeObject, now: number) => unknown): TableColumn {
  return { ...column(name, cell), priority: 1 };
}
