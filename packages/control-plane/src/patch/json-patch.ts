import { ApiError } from '../errors.ts';
import { deepEqual } from '../util/deep-equal.ts';

/** One RFC 6902 operation. */
interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

const fail = (message: string) => new ApiError(422, 'Invalid', message);

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw fail(`invalid JSON pointer: "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: unknown, tokens: string[], path: string): { parent: any; last: string } {
  let node: any = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (node && typeof node === 'object' && Object.hasOwn(node, token)) node = node[token];
    else throw fail(`doc is missing path: "${path}": missing value`);
    if (node === undefined || node === null || typeof node !== 'object') {
      throw fail(`doc is missing path: "${path}": missing value`);
    }
  }
  return { parent: node, last: tokens[tokens.length - 1]! };
}

function arrayIndex(arr: unknown[], token: string, path: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^\d+$/.test(token)) throw fail(`Unable to access invalid index: ${token}`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length))
    throw fail(`Unable to access invalid index: ${i} (path "${path}")`);
  return i;
}

function get(doc: unknown, path: string): unknown {
  let node: any = doc;
  for (const token of parsePointer(path)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (node && typeof node === 'object' && Object.hasOwn(node, token)) node = node[token];
    else throw fail(`doc is missing path: "${path}": missing value`);
    if (node === undefined) throw fail(`doc is missing path: "${path}": missing value`);
  }
  return node;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, true), 0, value);
  else parent[last] = value;
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, false), 1);
  else if (Object.hasOwn(parent, last)) delete parent[last];
  else throw fail(`Unable to remove nonexistent key: ${last}: missing value`);
  return doc;
}

/** Applies an RFC 6902 JSON patch to a copy of `doc`. @throws ApiError 422 naming the failing operation. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch))
    throw new ApiError(
      400,
      'BadRequest',
      'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    );
  let result: unknown = structuredClone(doc);
  for (const raw of patch as Operation[]) {
    if (!raw || typeof raw !== 'object' || typeof raw.path !== 'string')
      throw fail('invalid JSON patch operation');
    switch (raw.op) {
      case 'add':
        result = add(result, raw.path, structuredClone(raw.value));
        break;
      case 'remove':
        result = remove(result, raw.path);
        break;
      case 'replace':
        get(result, raw.path);
        result = add(remove(result, raw.path), raw.path, structuredClone(raw.value));
        break;
      case 'move': {
        const value = get(result, raw.from ?? '');
        result = add(remove(result, raw.from ?? ''), raw.path, value);
        break;
      }
      case 'copy':
        result = add(result, raw.path, structuredClone(get(result, raw.from ?? '')));
        break;
      case 'test':
        if (!deepEqual(get(result, raw.path), raw.value))
          throw fail(`testing value ${raw.path} failed: test failed`);
        break;
      default:
        throw fail(`Unexpected kind: ${String(raw.op)}`);
    }
  }
  return result;
}
