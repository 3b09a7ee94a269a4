/** One property of a model interface, as `kubernetes-models` declares it. */
export interface DtsProperty {
  name: string;
  optional: boolean;
  /** The TypeScript type text, e.g. `Array<IIoK8sApiCoreV1Container>` or `"Always" | "Never"`. */
  type: string;
  description: string;
}

/** What one `kubernetes-models` declaration file declares. */
export interface DtsFile {
  /** Local names of imported types → the module they come from. */
  imports: Map<string, string>;
  /** The file's model interface (`export interface IPodSpec { … }`), when it has one. */
  model?: { name: string; description: string; properties: DtsProperty[] };
  /** The file's type alias (`export type IQuantity = number | string;`), when it is one. */
  alias?: { name: string; type: string; description: string };
  /** The module of its compiled validator under `_schemas/` (`IoK8sApiAppsV1DeploymentSpec`). */
  validatorModule?: string;
}

const IMPORT = /^import \{ ([^}]+) \} from "([^"]+)";$/gm;

/** The text of a JSDoc comment without its stars (the description `kubernetes-models` copies from Kubernetes). */
function commentText(comment: string): string {
  return comment
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

/** Reads a type expression from `text` at `at` up to the `;` that ends it (brackets may nest). */
function typeExpression(text: string, at: number): { type: string; end: number } {
  let depth = 0;
  let inString = false;
  for (let i = at; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') inString = !inString;
    if (inString) continue;
    if (c === '{' || c === '<' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === '>' || c === ')' || c === ']') depth--;
    else if (c === ';' && depth === 0)
      return { type: text.slice(at, i).replace(/\s+/g, ' ').trim(), end: i + 1 };
  }
  throw new Error('unterminated type expression');
}

/**
 * Parses a generated `kubernetes-models` declaration file: its imports and its model interface or
 * type alias. The files are machine-generated from Kubernetes' OpenAPI document in one regular
 * shape, which is all this reader handles.
 */
export function readDts(text: string): DtsFile {
  const imports = new Map<string, string>();
  for (const m of text.matchAll(IMPORT)) {
    for (const name of m[1]!.split(',')) imports.set(name.trim(), m[2]!);
  }
  const file: DtsFile = { imports };
  const exported = /export type \{ \w+ as I(IoK8s\w+)/.exec(text);
  if (exported) file.validatorModule = exported[1];
  const iface = /(?:(\/\*\*(?:[^*]|\*(?!\/))*\*\/)\s*)?export interface (\w+)(?: extends \w+)? \{/.exec(text);
  if (iface) {
    const properties: DtsProperty[] = [];
    let i = iface.index + iface[0].length;
    const prop = /\s*(\/\*\*(?:[^*]|\*(?!\/))*\*\/)?\s*"([^"]+)"(\??): /y;
    for (;;) {
      prop.lastIndex = i;
      const m = prop.exec(text);
      if (!m) break;
      const { type, end } = typeExpression(text, prop.lastIndex);
      properties.push({ name: m[2]!, optional: m[3] === '?', type, description: commentText(m[1] ?? '') });
      i = end;
    }
    file.model = { name: iface[2]!, description: commentText(iface[1] ?? ''), properties };
    return file;
  }
  const alias = /(?:(\/\*\*(?:[^*]|\*(?!\/))*\*\/)\s*)?export type (\w+) = ([^;]+);/.exec(text);
  if (alias)
    file.alias = { name: alias[2]!, type: alias[3]!.trim(), description: commentText(alias[1] ?? '') };
  return file;
}
