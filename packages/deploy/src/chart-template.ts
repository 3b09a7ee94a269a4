import { GO_FALSE } from '@kruise/kube-compat/go-bool';
import type { Condition, ValueSource } from './value-source.ts';
import { defaultValue, type ValuePath } from './values.ts';

type Use =
  | { kind: 'scalar' | 'string' | 'text' | 'block' | 'items'; path: ValuePath }
  | { kind: 'optional'; key: string; path: ValuePath }
  | { kind: 'when'; condition: Condition };

const TOKEN = /__helm(\d+)__/g;
const ref = (path: ValuePath) => `.Values.${path}`;

/** The Go template test of a condition (as `holds` evaluates it for deploy/). */
export function templateCondition(condition: Condition): string {
  if ('value' in condition) return ref(condition.value);
  // the gate's last setting (a later one wins, as in the programs) is one of Go's false spellings
  const setting = `regexFindAll "(^|,)${condition.gateOff}=[^,]*" (${ref('featureGates')} | nospace) -1 | last | default ""`;
  return `not (regexMatch "=(${GO_FALSE.join('|')})$" (${setting}))`;
}

/**
 * A ValueSource whose values are placeholder tokens; `template` turns YAML written from objects
 * built with it into a Helm template, each token into the expression that reads its value.
 */
export class ChartSource implements ValueSource {
  private readonly uses: Use[] = [];

  private token(use: Use): string {
    this.uses.push(use);
    return `__helm${this.uses.length - 1}__`;
  }

  scalar<T extends string | number | boolean>(path: ValuePath): T {
    return this.token({ kind: 'scalar', path }) as T;
  }
  string(path: ValuePath): string {
    return this.token({ kind: 'string', path });
  }
  text(path: ValuePath): string {
    return this.token({ kind: 'text', path });
  }
  block<T>(path: ValuePath): T {
    return this.token({ kind: 'block', path }) as T;
  }
  optional(key: string, path: ValuePath): Record<string, unknown> {
    return { [key]: this.token({ kind: 'optional', key, path }) };
  }
  items(path: ValuePath): object[] {
    return [this.token({ kind: 'items', path }) as unknown as object];
  }
  when<T extends object>(condition: Condition, item: T): T[] {
    return [{ [this.token({ kind: 'when', condition })]: true, ...item } as T];
  }

  /** Rewrites YAML text written from objects built with this source into a Helm template. */
  template(yamlText: string): string {
    const lines = yamlText.split('\n');
    const out: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const whole = /^(\s*)(- )?(?:([\w.-]+): )?__helm(\d+)__(: true)?$/.exec(line);
      const use = whole ? this.uses[Number(whole[4])] : undefined;
      if (!whole || !use || use.kind === 'scalar' || use.kind === 'string' || use.kind === 'text') {
        out.push(line.replace(TOKEN, (_, n) => this.expression(this.uses[Number(n)]!)));
        continue;
      }
      const [, indent = '', dash = '', key] = whole;
      const column = indent.length + dash.length;
      if (use.kind === 'block') {
        out.push(`${indent}${dash}${key}:`, `{{- toYaml ${ref(use.path)} | nindent ${column + 2} }}`);
      } else if (use.kind === 'optional') {
        if (dash) throw new Error(`optional ${key} cannot open a list item`);
        out.push(`{{- with ${ref(use.path)} }}`, `${indent}${key}:`);
        out.push(`{{- toYaml . | nindent ${column + 2} }}`, '{{- end }}');
      } else if (use.kind === 'items') {
        out.push(`{{- with ${ref(use.path)} }}`, `{{ toYaml . | indent ${indent.length} }}`, '{{- end }}');
      } else if (use.kind === 'when') {
        // A conditional list item: its marker key opened the item; the next key takes the dash.
        out.push(`{{- if ${templateCondition(use.condition)} }}`);
        const next = lines[++i]!;
        out.push(`${indent}- ${next.slice(column)}`);
        while (i + 1 < lines.length && /^\s*/.exec(lines[i + 1]!)![0].length >= column && lines[i + 1] !== '')
          out.push(this.template(lines[++i]!));
        out.push('{{- end }}');
      }
    }
    return out.join('\n');
  }

  private expression(use: Use): string {
    if (use.kind === 'scalar')
      return typeof defaultValue(use.path) === 'string'
        ? `{{ ${ref(use.path)} | quote }}`
        : `{{ ${ref(use.path)} }}`;
    if (use.kind === 'string') return `{{ ${ref(use.path)} | quote }}`;
    if (use.kind === 'text') return `{{ ${ref(use.path)} }}`;
    throw new Error(`${use.kind} value ${'path' in use ? use.path : ''} must stand alone on its line`);
  }
}

/** Wraps a document's template in the condition under which it is rendered. */
export const conditional = (condition: Condition | undefined, text: string): string =>
  condition ? `{{- if ${templateCondition(condition)} }}\n${text.trimEnd()}\n{{- end }}\n` : text;
