import { ApiError, badRequest } from '../errors.ts';

type Json = any;

const isObject = (v: unknown): v is Record<string, Json> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Lists of primitives that merge (union) instead of being replaced. */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

/**
 * The merge key of an object list at `path`, as Kubernetes' Go types declare
 * (`patchMergeKey`), for the lists kubectl and our controllers touch.
 */
export function mergeKeyFor(path: string[]): string | undefined {
  const field = path[path.length - 1];
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
    case 'webhooks':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'volumeDevices':
      return 'devicePath';
    case 'ports':
      return path.includes('containers') || path.includes('initContainers') ? 'containerPort' : 'port';
    case 'conditions':
      return 'type';
    case 'ownerReferences':
      return 'uid';
    case 'hostAliases':
      return 'ip';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    default:
      return undefined;
  }
}

const PATCH_DIRECTIVES = new Set(['replace', 'merge', 'delete']);

/** A JSON value as Go's `%v` prints the map kube-apiserver decoded it into. */
function goValue(value: Json): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isObject(value))
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${goValue(value[k])}`)
      .join(' ')}]`;
  return String(value);
}

/** kube-apiserver's answer to an unknown `$patch` (apimachinery's ErrBadPatchType, returned as a 500). */
function checkDirective(map: Record<string, Json>): void {
  const directive = map.$patch;
  if (directive === undefined || PATCH_DIRECTIVES.has(directive)) return;
  throw new ApiError(500, '', `unknown patch type: ${goValue(directive)} in map: ${goValue(map)}`);
}

function mergeList(original: Json[], patch: Json[], path: string[]): Json[] {
  for (const e of patch) if (isObject(e)) checkDirective(e);
  if (patch.some((e) => isObject(e) && e.$patch === 'replace')) {
    return patch.filter((e) => !(isObject(e) && e.$patch === 'replace'));
  }
  const key = mergeKeyFor(path);
  const field = path[path.length - 1] ?? '';
  if (!key) {
    if (MERGED_PRIMITIVE_LISTS.has(field)) {
      const out = [...original];
      for (const v of patch) if (!out.includes(v)) out.push(v);
      return out;
    }
    return patch.map((e) => stripDirectives(e));
  }
  const result: Json[] = original.map((e) => structuredClone(e));
  for (const element of patch) {
    if (!isObject(element)) {
      throw badRequest(`unable to find api field in struct for the list ${field}: elements must be objects`);
    }
    const id = element[key];
    const index = result.findIndex((e) => isObject(e) && e[key] === id);
    if (element.$patch === 'delete') {
      if (index !== -1) result.splice(index, 1);
      continue;
    }
    if (index === -1) result.push(stripDirectives(element));
    else result[index] = mergeObject(result[index], element, path);
  }
  return result;
}

function stripDirectives(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$')) continue;
    if (v === null) continue;
    out[k] = stripDirectives(v);
  }
  return out;
}

function orderBy(list: Json[], order: Json[], key: string | undefined): Json[] {
  const idOf = (e: Json) => (key && isObject(e) ? e[key] : e);
  const ids = order.map((o) => (key && isObject(o) ? o[key] : o));
  const ranked = list.map((e, i) => ({ e, i, rank: ids.indexOf(idOf(e)) }));
  ranked.sort((a, b) => {
    const ra = a.rank === -1 ? Number.MAX_SAFE_INTEGER : a.rank;
    const rb = b.rank === -1 ? Number.MAX_SAFE_INTEGER : b.rank;
    return ra - rb || a.i - b.i;
  });
  return ranked.map((r) => r.e);
}

function mergeObject(original: Json, patch: Record<string, Json>, path: string[]): Json {
  checkDirective(patch);
  if (patch.$patch === 'replace') return stripDirectives(patch);
  if (patch.$patch === 'delete') return undefined;
  const result: Record<string, Json> = isObject(original) ? { ...original } : {};
  const orders: [string, Json[]][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    if (key === '$retainKeys') continue;
    if (key.startsWith('$setElementOrder/')) {
      orders.push([key.slice('$setElementOrder/'.length), value]);
      continue;
    }
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(result[field])) result[field] = result[field].filter((v: Json) => !value.includes(v));
      continue;
    }
    const childPath = [...path, key];
    if (value === null) delete result[key];
    else if (isObject(value)) {
      const merged = mergeObject(result[key], value, childPath);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(Array.isArray(result[key]) ? result[key] : [], value, childPath);
    } else result[key] = value;
  }
  for (const [field, order] of orders) {
    if (Array.isArray(result[field]) && Array.isArray(order)) {
      result[field] = orderBy(result[field], order, mergeKeyFor([...path, field]));
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    for (const key of Object.keys(result)) if (!patch.$retainKeys.includes(key)) delete result[key];
  }
  return result;
}

/** Applies a strategic merge patch (Kubernetes' list-aware merge) to a copy of `original`. */
export function applyStrategicMergePatch(original: Json, patch: Json): Json {
  if (!isObject(patch)) throw badRequest('strategic merge patch must be a JSON object');
  return mergeObject(structuredClone(original), patch, []) ?? {};
}
