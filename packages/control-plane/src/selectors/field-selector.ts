import { badRequest } from '../errors.ts';

/** One `field=value` / `field!=value` term. */
export interface FieldRequirement {
  field: string;
  value: string;
  negate: boolean;
}

/** Parses a field selector (`metadata.name=x,spec.nodeName!=y`). Backslash escapes `,` `=` `\`. */
export function parseFieldSelector(text: string | undefined | null): FieldRequirement[] {
  if (!text) return [];
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text[++i];
    } else if (ch === ',') {
      terms.push(current);
      current = '';
    } else current += ch;
  }
  terms.push(current);
  const out: FieldRequirement[] = [];
  for (const raw of terms) {
    const term = raw.trim();
    if (!term) continue;
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m)
      throw badRequest(
        `invalid field selector: "${term}": invalid selector: '${term}'; can't understand '${term}'`,
      );
    out.push({ field: m[1]!, value: m[3]!.replace(/\\(.)/g, '$1'), negate: m[2] === '!=' });
  }
  return out;
}

/** Whether the object's selectable field values satisfy the requirements. */
export function matchesFields(requirements: FieldRequirement[], fields: Record<string, string>): boolean {
  for (const r of requirements) {
    const value = fields[r.field] ?? '';
    if (r.negate ? value === r.value : value !== r.value) return false;
  }
  return true;
}
