import type { Flag } from './flag-set.ts';

/** The default texts pflag leaves out of help for each type (its `defaultIsZeroValue`). */
const ZERO_DEFAULTS: Record<string, readonly string[]> = {
  bool: ['false'],
  duration: ['0', '0s'],
  int: ['0'],
  string: [''],
  stringArray: ['[]'],
};
const OTHER_ZERO_DEFAULTS = ['false', '<nil>', '', '0'];

/** The flag's column of a help line: `      --name type` (a bool shows no type; a flag that may stand alone, `[=text]`). */
function flagColumn({ name, value }: Flag<unknown>): string {
  const type = value.type === 'bool' ? '' : value.type;
  const alone = value.noOptDefVal;
  const optional =
    alone === undefined || (value.type === 'bool' && alone === 'true')
      ? ''
      : value.type === 'string'
        ? `[="${alone}"]`
        : `[=${alone}]`;
  return `      --${name}${type && ` ${type}`}${optional}`;
}

/** The usage column of a help line: the usage and, unless it is the type's zero, the default as Go prints it. */
function usageColumn({ value, defaultValue, usage }: Flag<unknown>): string {
  const text = value.format ? value.format(defaultValue) : String(defaultValue);
  if ((ZERO_DEFAULTS[value.type] ?? OTHER_ZERO_DEFAULTS).includes(text)) return usage;
  return `${usage} (default ${value.type === 'string' ? JSON.stringify(text) : text})`;
}

/**
 * The flags' lines of help as pflag's `FlagUsages` writes them: sorted by name, one line per flag
 * (`      --flag type   usage (default x)`), the usages aligned three spaces after the longest
 * flag column, a usage's further lines indented to the same column.
 */
export function flagUsages(flags: Iterable<Flag<unknown>>): string {
  const rows = [...flags]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((flag) => [flagColumn(flag), usageColumn(flag)] as const);
  const width = Math.max(0, ...rows.map(([column]) => column.length));
  const indent = `\n${' '.repeat(width + 3)}`;
  return rows
    .map(([column, usage]) => `${column.padEnd(width)}   ${usage.replaceAll('\n', indent)}\n`)
    .join('');
}
