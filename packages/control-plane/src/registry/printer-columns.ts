import { goFloat } from '@kruise/kube-compat';
import { humanDuration } from './columns.ts';
import { parseJsonPathTemplate } from './jsonpath-template.ts';
import type { KubeObject, TableColumn } from './types.ts';

/** One of a CRD version's `additionalPrinterColumns`. */
interface PrinterColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/**
 * The Table columns of a CRD version's `additionalPrinterColumns`, as kube-apiserver's table
 * convertor makes them: each `jsonPath` runs as client-go's jsonpath and the cell is its first
 * result (`.spec.containers[*].image` shows the first container's image); no result, or a path
 * that fails on the object, is an empty cell. A path that does not parse ends the columns there,
 * as kube-apiserver keeps the columns before it.
 */
export function printerColumns(definitions: PrinterColumnDefinition[]): TableColumn[] {
  const columns: TableColumn[] = [];
  for (const col of definitions) {
    let path: ReturnType<typeof parseJsonPathTemplate>;
    try {
      path = parseJsonPathTemplate(`{${col.jsonPath}}`);
    } catch {
      break;
    }
    columns.push({
      name: col.name,
      type: col.type === 'date' ? 'string' : col.type,
      ...(col.format ? { format: col.format } : {}),
      description:
        col.description || `Custom resource definition column (in JSONPath format): ${col.jsonPath}`,
      priority: col.priority ?? 0,
      cell: (obj: KubeObject, now: number) => {
        let results: unknown[];
        try {
          results = path.findResults(obj)[0] ?? [];
        } catch {
          return null;
        }
        return results.length ? cellOf(col.type, results[0], now) : null;
      },
    });
  }
  return columns;
}

/** kube-apiserver's cell of a column type: a string column prints the value, others keep values of their type only. */
function cellOf(type: string, value: unknown, now: number): unknown {
  if (type === 'string') return printed(value);
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? dateCell(value, now) : null;
    default:
      return null;
  }
}

/** A value as client-go's jsonpath prints it: lists and maps as JSON, null as `<no value>`. */
function printed(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'object') return goJson(value);
  if (typeof value === 'number') return goNumber(value);
  return String(value);
}

/** `5m` since an RFC 3339 time; `<unknown>` for an empty one, `<invalid>` for one that does not parse. */
function dateCell(text: string, now: number): string {
  if (text === '' || text === 'null') return '<unknown>';
  const t = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)
    ? Date.parse(text)
    : NaN;
  return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
}

/**
 * A number as Go's fmt prints an unstructured value: integers (int64) as they are, others as
 * float64's %v (exponent form from 1e+06, or below 1e-04).
 */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  return goFloat(n);
}

/** JSON as Go's encoding/json writes a map: keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped. */
function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sorted(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
