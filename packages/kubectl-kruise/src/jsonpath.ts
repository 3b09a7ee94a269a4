/**
 * kubectl's `-o jsonpath=TEMPLATE` for the subset of its JSONPath that names fields: literal text,
 * `{.a.b}`, `{.a['k.x']}`, `{.list[0]}` / `[-1]`, `{.list[*].name}` / `.*`, and `{"text"}` (e.g.
 * `{"\n"}`). Strings print as they are, other values as JSON, several results joined by spaces; a
 * missing field prints nothing (kubectl's allowMissingKeys). `range`, filters and slices are refused.
 */
export function renderJsonPath(template: string, obj: unknown): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      out += template.slice(i);
      break;
    }
    out += template.slice(i, open);
    const close = template.indexOf('}', open);
    if (close < 0) throw new Error(`error parsing jsonpath ${template}, unclosed action`);
    out += evaluate(template.slice(open + 1, close).trim(), obj, template);
    i = close + 1;
  }
  return out;
}

const STRING = /^"((?:[^"\\]|\\.)*)"$/;

function evaluate(expr: string, obj: unknown, template: string): string {
  const literal = STRING.exec(expr);
  if (literal) return JSON.parse(`"${literal[1]}"`) as string;
  if (!expr.startsWith('.') && !expr.startsWith('[') && expr !== '@')
    throw new Error(`jsonpath expression {${expr}} in ${template} is not supported by kubectl-kruise`);
  let nodes: unknown[] = [obj];
  for (const step of stepsOf(expr === '@' ? '' : expr, template))
    nodes = nodes.flatMap((n) => apply(n, step));
  return nodes
    .filter((n) => n !== undefined)
    .map((n) => (typeof n === 'string' ? n : JSON.stringify(n)))
    .join(' ');
}

type Step = string | number | '*';

function stepsOf(expr: string, template: string): Step[] {
  const steps: Step[] = [];
  const re = /\.([^.[\]]+)|\[(-?\d+)\]|\['([^']*)'\]|\["([^"]*)"\]|\[\*\]/y;
  let at = 0;
  while (at < expr.length) {
    re.lastIndex = at;
    const m = re.exec(expr);
    if (!m)
      throw new Error(`jsonpath expression {${expr}} in ${template} is not supported by kubectl-kruise`);
    at = re.lastIndex;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push(m[3] ?? m[4] ?? '*');
  }
  return steps;
}

function apply(node: unknown, step: Step): unknown[] {
  if (node === null || typeof node !== 'object') return [];
  if (step === '*') return Object.values(node);
  if (typeof step === 'number') {
    if (!Array.isArray(node)) return [];
    return [node[step < 0 ? node.length + step : step]];
  }
  return [(node as Record<string, unknown>)[step]];
}
