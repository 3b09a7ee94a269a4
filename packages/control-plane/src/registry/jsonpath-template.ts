/**
 * client-go's jsonpath (k8s.io/client-go/util/jsonpath), as kube-apiserver runs it on a CRD's
 * printer columns: `{…}` actions and literal text; in an action fields (`.a.b`, `a\.b` escaped),
 * `..` (recursive descent), `*` and `[*]`, indexes and slices (`[0]`, `[-1]`, `[1:3]`, `[::2]`),
 * unions (`[0,2]`), `['key']`, and filters (`[?(@.type=="Ready")]` with == != < > <= >=, or
 * `[?(@.x)]` for presence). Missing keys give no result (allowMissingKeys); a bad index, a
 * subscript of a non-list or an uncomparable filter throw, as they fail there. `range`/`end` are
 * not parsed.
 */
export interface JsonPathTemplate {
  /** The results of each of the template's parts (an action, or literal text) on `data`. */
  findResults(data: unknown): unknown[][];
}

type Param = { known: boolean; value: number; derived?: boolean };

type PathNode =
  | { kind: 'text'; text: string }
  | { kind: 'literal'; value: number | boolean }
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive' }
  | { kind: 'array'; params: [Param, Param, Param] }
  | { kind: 'union'; lists: PathNode[][] }
  | { kind: 'filter'; left: PathNode[]; right: PathNode[]; operator: string };

/** A JSONPath that does not parse, or fails on the data it runs on. */
export class JsonPathError extends Error {}

const TERMINATORS = new Set(['.', ',', '[', ']', '$', '@', '{', '}', ' ', '\t', '\r', '\n']);
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const DICT_KEY = /^'([^']*)'$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

/** Parses a template (`{.spec.containers[*].name}`, literal text around actions allowed). */
export function parseJsonPathTemplate(template: string): JsonPathTemplate {
  const parts: PathNode[][] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const text = template.slice(i, open < 0 ? template.length : open);
    if (text) parts.push([{ kind: 'text', text }]);
    if (open < 0) break;
    const close = template.indexOf('}', open);
    if (close < 0) throw new JsonPathError('unclosed action');
    parts.push(parseAction(template.slice(open + 1, close)));
    i = close + 1;
  }
  return { findResults: (data) => parts.map((nodes) => walkList([data], nodes)) };
}

/** The nodes of one action's text. */
function parseAction(text: string): PathNode[] {
  const nodes: PathNode[] = [];
  let at = 0;
  while (at < text.length) {
    const ch = text[at]!;
    if (ch === ' ' || ch === '@' || ch === '$') at++;
    else if (ch === '.') {
      if (text[at + 1] === '.') {
        nodes.push({ kind: 'recursive' });
        at++;
      }
      let end = at + 1;
      while (end < text.length && !TERMINATORS.has(text[end]!)) end += text[end] === '\\' ? 2 : 1;
      const name = text.slice(at + 1, end).replace(/\\/g, '');
      nodes.push(name === '*' ? { kind: 'wildcard' } : { kind: 'field', name });
      at = end;
    } else if (ch === '[' && text.startsWith('[?(', at)) at = parseFilter(text, at, nodes);
    else if (ch === '[') {
      const end = text.indexOf(']', at);
      if (end < 0) throw new JsonPathError('unterminated array');
      nodes.push(...parseSubscript(text.slice(at + 1, end)));
      at = end + 1;
    } else if (ch === '"' || ch === "'") {
      let end = at + 1;
      while (end < text.length && text[end] !== ch) end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) throw new JsonPathError('unterminated quoted string');
      nodes.push({ kind: 'text', text: unquote(text.slice(at + 1, end)) });
      at = end + 1;
    } else {
      const word = /^(?:[+-]?\d+(?:\.\d+)?|true|false)/.exec(text.slice(at))?.[0];
      if (!word) throw new JsonPathError(`unrecognized character in action: ${ch}`);
      nodes.push({
        kind: 'literal',
        value: word === 'true' ? true : word === 'false' ? false : Number(word),
      });
      at += word.length;
    }
  }
  return nodes;
}

function unquote(text: string): string {
  return text.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c);
}

/** `[…]`: a union, a `'key'`, or an index or slice (`*` is every element). */
function parseSubscript(inner: string): PathNode[] {
  const text = inner === '*' ? ':' : inner;
  const members = text.split(',');
  if (members.length > 1) return [{ kind: 'union', lists: members.map((m) => parseAction(`[${m.trim()}]`)) }];
  const key = DICT_KEY.exec(text);
  if (key) return parseAction(`.${key[1]}`);
  const slice = SLICE.exec(text);
  if (!slice) throw new JsonPathError(`invalid array index ${text}`);
  const param = (s: string | undefined, i: number): Param => {
    const digits = i > 0 && s ? s.slice(1) : s;
    if (s && digits !== '') return { known: true, value: Number(digits) };
    if (!s && i === 1) return { known: true, value: Number(slice[1] || 0) + 1, derived: true };
    return { known: false, value: 0 };
  };
  return [{ kind: 'array', params: [param(slice[1], 0), param(slice[2], 1), param(slice[3], 2)] }];
}

/** `[?(left op right)]` or `[?(path)]`; returns where parsing goes on. */
function parseFilter(text: string, at: number, nodes: PathNode[]): number {
  let i = at + 3;
  let quote = '';
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote && text[i - 1] !== '\\') quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ')') break;
  }
  if (i >= text.length) throw new JsonPathError('unterminated filter');
  if (text[i + 1] !== ']') throw new JsonPathError('unclosed array expect ]');
  const inner = text.slice(at + 3, i);
  const parts = FILTER.exec(inner);
  nodes.push(
    parts
      ? { kind: 'filter', left: parseAction(parts[1]!), operator: parts[2]!, right: parseAction(parts[3]!) }
      : { kind: 'filter', left: parseAction(inner), operator: 'exists', right: [] },
  );
  return i + 2;
}

const isNil = (v: unknown) => v === null || v === undefined;
const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function walkList(input: unknown[], nodes: PathNode[]): unknown[] {
  let values = input;
  for (const node of nodes) values = walk(values, node);
  return values;
}

function walk(input: unknown[], node: PathNode): unknown[] {
  switch (node.kind) {
    case 'text':
      return [node.text];
    case 'literal':
      return input.map(() => node.value);
    case 'field':
      if (node.name === '') return input;
      return input.filter((v) => isMap(v) && Object.hasOwn(v, node.name)).map((v) => (v as any)[node.name]);
    case 'wildcard':
      return input.flatMap(children);
    case 'recursive':
      return recursive(input);
    case 'array':
      return input.flatMap((v) => (isNil(v) ? [] : slice(v, node.params)));
    case 'union':
      return node.lists.flatMap((list) => walkList(input, list));
    case 'filter':
      return input.flatMap((v) => (isNil(v) ? [] : filter(v, node)));
  }
}

/** A map's values, a list's elements, a string's bytes. */
function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isMap(v)) return Object.values(v);
  if (typeof v === 'string') return [...Buffer.from(v)];
  return [];
}

function recursive(input: unknown[]): unknown[] {
  return input.flatMap((v) => {
    const below = isNil(v) ? [] : children(v);
    return below.length ? [v, ...recursive(below)] : [];
  });
}

function listOf(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new JsonPathError(`${typeof v} is not array or slice`);
  return v;
}

function slice(v: unknown, params: [Param, Param, Param]): unknown[] {
  const list = listOf(v);
  const n = list.length;
  let start = params[0].known ? params[0].value : 0;
  if (start < 0) start += n;
  let end = params[1].known ? params[1].value : n;
  if (end < 0 || (end === 0 && params[1].derived)) end += n;
  if (start === end) return [];
  if (start >= n || start < 0)
    throw new JsonPathError(`array index out of bounds: index ${start}, length ${n}`);
  if (end > n || end < 0) throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${n}`);
  if (start > end) throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`);
  const step = params[2].known ? params[2].value : 1;
  if (step <= 0) throw new JsonPathError('step must be > 0');
  return list.slice(start, end).filter((_, i) => i % step === 0);
}

function filter(v: unknown, node: Extract<PathNode, { kind: 'filter' }>): unknown[] {
  return listOf(v).filter((item) => {
    const lefts = walkList([item], node.left);
    if (node.operator === 'exists') return lefts.length > 0;
    const rights = walkList([item], node.right);
    if (!lefts.length || !rights.length) return false;
    if (lefts.length > 1 || rights.length > 1)
      throw new JsonPathError('can only compare one element at a time');
    return compare(lefts[0], rights[0], node.operator);
  });
}

/** Go template's comparison kinds: numbers compare as ints or floats, never across. */
function kindOf(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string' || typeof v === 'boolean') return typeof v;
  throw new JsonPathError('invalid type for comparison');
}

function compare(a: unknown, b: unknown, operator: string): boolean {
  const kind = kindOf(a);
  if (kind !== kindOf(b)) throw new JsonPathError('incompatible types for comparison');
  if (operator === '==') return a === b;
  if (operator === '!=') return a !== b;
  if (kind === 'boolean') throw new JsonPathError('invalid type for comparison');
  const [x, y] = [a as number | string, b as number | string];
  if (operator === '<') return x < y;
  if (operator === '>') return x > y;
  if (operator === '<=') return x <= y;
  if (operator === '>=') return x >= y;
  throw new JsonPathError(`unrecognized filter operator ${operator}`);
}
