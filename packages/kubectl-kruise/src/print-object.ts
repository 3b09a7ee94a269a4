import { stringify } from 'yaml';
import type { CommandContext } from './command.ts';
import type { FlagSpec } from './flags.ts';
import { renderJsonPath } from './jsonpath.ts';

/** kubectl's `-o/--output` flag, for the formats this plugin prints. */
export const OUTPUT_FLAG: FlagSpec = {
  name: 'output',
  short: 'o',
  type: 'string',
  usage: 'Output format. One of: (json, yaml, name, jsonpath).',
};

const FORMATS = ['json', 'yaml', 'name', 'jsonpath'];

/** How many objects a run has printed as YAML (kubectl's YAML printer separates them with `---`). */
const yamlPrinted = new WeakMap<CommandContext, number>();

/** kubectl's printer error for an unknown `-o`, checked before anything is sent. */
export function checkOutputFormat(ctx: CommandContext): void {
  const format = String(ctx.flags.output ?? '');
  if (format === 'jsonpath' || format === 'jsonpath=')
    throw new Error('template format specified but no template given');
  if (format.startsWith('jsonpath=')) {
    renderJsonPath(format.slice('jsonpath='.length), {}); // a template it cannot run fails before any write
    return;
  }
  if (format && !FORMATS.includes(format))
    throw new Error(
      `unable to match a printer suitable for the output format "${format}", allowed formats are: ${FORMATS.join(',')}`,
    );
}

/**
 * Prints an object as kubectl does after a write: `-o json` (4-space indent), `-o yaml`,
 * `-o jsonpath=TEMPLATE` (jsonpath.ts), `-o name`
 * (`kind.group/name`), or by default `kind.group/name <action>` (with kubectl's dry-run suffix).
 */
export function printObject(
  ctx: CommandContext,
  obj: { apiVersion?: string; kind?: string; metadata?: { name?: string } },
  action: string,
  suffix = '',
): void {
  const format = String(ctx.flags.output ?? '');
  if (format.startsWith('jsonpath=')) return ctx.out(renderJsonPath(format.slice('jsonpath='.length), obj));
  if (format === 'json') return ctx.out(`${JSON.stringify(obj, null, 4)}\n`);
  if (format === 'yaml') {
    const count = yamlPrinted.get(ctx) ?? 0;
    yamlPrinted.set(ctx, count + 1);
    return ctx.out(`${count ? '---\n' : ''}${stringify(obj)}`);
  }
  const group = obj.apiVersion?.includes('/') ? `.${obj.apiVersion.split('/')[0]}` : '';
  const name = `${obj.kind?.toLowerCase()}${group}/${obj.metadata?.name}`;
  ctx.out(format === 'name' ? `${name}\n` : `${name} ${action}${suffix}\n`);
}
