import { deepEqual } from '../util/deep-equal.ts';
import { type FieldPath, FieldSet, fieldElement, keyElement, valueElement } from './field-set.ts';
import type { SsaType } from './types.ts';

const isObject = (v: unknown): v is Record<string, any> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A path's map key extended by one element (FieldSet's key form). */
const join = (id: string, pe: string) => (id ? `${id}\u0000${pe}` : pe);

/** The type of a struct or map's child; unknown fields are untyped. */
function childType(t: SsaType, key: string): { type: SsaType; declared: boolean; implicit: boolean } {
  if (t.kind === 'struct') {
    const f = t.fields.get(key);
    if (f) return { type: f.type, declared: true, implicit: f.implicit };
    return { type: { kind: 'untyped' }, declared: false, implicit: false };
  }
  if (t.kind === 'map') return { type: t.elem, declared: false, implicit: false };
  return { type: { kind: 'untyped' }, declared: false, implicit: false };
}

/** Whether a value of this type is owned whole (no finer-grained fields). */
function isLeaf(t: SsaType, value: unknown): boolean {
  if (t.kind === 'scalar') return true;
  if (t.kind === 'untyped') return !isObject(value);
  if (t.kind === 'list') return t.rel === 'atomic' || !Array.isArray(value);
  return t.atomic || !isObject(value);
}

/** The path element of a list item. */
function itemElement(t: Extract<SsaType, { kind: 'list' }>, item: unknown, index: number): string {
  if (t.rel === 'map' && isObject(item)) return keyElement(item, t.keys, t.keyDefaults);
  if (t.rel === 'set') return valueElement(item);
  return `i:${index}`;
}

/** The fields a value sets (structured-merge-diff's ToFieldSet). */
export function toFieldSet(value: unknown, t: SsaType): FieldSet {
  const set = new FieldSet();
  const walk = (v: unknown, type: SsaType, path: FieldPath, id: string) => {
    if (isLeaf(type, v)) {
      if (path.length) set.insert(path, id);
      return;
    }
    if (type.kind === 'list') {
      (v as unknown[]).forEach((item, i) => {
        const pe = itemElement(type, item, i);
        const childId = join(id, pe);
        walk(item, type.elem, [...path, pe], childId);
        set.insert([...path, pe], childId);
      });
      return;
    }
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      const c = childType(type, key);
      const pe = fieldElement(key);
      const p = [...path, pe];
      const childId = join(id, pe);
      walk(child, c.type, p, childId);
      if (child === null || (isObject(child) && Object.keys(child).length === 0) || !c.declared)
        set.insert(p, childId);
    }
  };
  walk(value, t, [], '');
  return set;
}

/** What changed between two values. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const isEmpty = (v: unknown) =>
  v === undefined ||
  v === null ||
  (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

/** Compares two values field by field (structured-merge-diff's Compare). */
export function compare(lhs: unknown, rhs: unknown, t: SsaType): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const walk = (l: unknown, r: unknown, type: SsaType, path: FieldPath, id: string, implicit: boolean) => {
    const leaf = isLeaf(type, r === undefined ? l : r) || (isEmpty(l) && isEmpty(r));
    if (leaf) {
      if (!path.length) return;
      if (l === undefined) out.added.insert(path, id);
      else if (r === undefined) out.removed.insert(path, id);
      else if (!deepEqual(l, r)) out.modified.insert(path, id);
      return;
    }
    if (type.kind === 'list') {
      const items = new Map<string, [unknown, unknown]>();
      (Array.isArray(l) ? l : []).forEach((item, i) => {
        items.set(itemElement(type, item, i), [item, undefined]);
      });
      (Array.isArray(r) ? r : []).forEach((item, i) => {
        const pe = itemElement(type, item, i);
        items.set(pe, [items.get(pe)?.[0], item]);
      });
      for (const [pe, [li, ri]] of items) walk(li, ri, type.elem, [...path, pe], join(id, pe), false);
    } else {
      const lo = isObject(l) ? l : {};
      const ro = isObject(r) ? r : {};
      for (const key of new Set([...Object.keys(lo), ...Object.keys(ro)])) {
        const c = childType(type, key);
        const pe = fieldElement(key);
        walk(lo[key], ro[key], c.type, [...path, pe], join(id, pe), c.implicit);
      }
    }
    if (!path.length || implicit) return;
    if (l === undefined) out.added.insert(path, id);
    else if (r === undefined) out.removed.insert(path, id);
  };
  walk(lhs, rhs, t, [], '', false);
  return out;
}

/**
 * The `fieldsV1` of what `compare(undefined, value)` reports as added, built directly (a create's
 * managedFields): the same members, without path arrays, a FieldSet and its serialization.
 * Empty when nothing is added.
 */
export function addedFieldsV1(value: unknown, t: SsaType): Record<string, any> {
  // A node: its children by path element, and whether it is itself a member.
  type Node = { children: Map<string, Node>; member: boolean };
  const root: Node = { children: new Map(), member: false };
  const child = (parent: Node, pe: string) => {
    let n = parent.children.get(pe);
    if (!n) {
      n = { children: new Map(), member: false };
      parent.children.set(pe, n);
    }
    return n;
  };
  const walk = (r: unknown, type: SsaType, node: Node, isRoot: boolean, implicit: boolean) => {
    if (isLeaf(type, r) || isEmpty(r)) {
      if (!isRoot) node.member = true;
      return;
    }
    if (type.kind === 'list') {
      const items = new Map<string, unknown>();
      (r as unknown[]).forEach((item, i) => {
        items.set(itemElement(type, item, i), item);
      });
      for (const [pe, item] of items) walk(item, type.elem, child(node, pe), false, false);
    } else {
      for (const [key, v] of Object.entries(r as Record<string, unknown>)) {
        const c = childType(type, key);
        walk(v, c.type, child(node, fieldElement(key)), false, c.implicit);
      }
    }
    if (!isRoot && !implicit) node.member = true;
  };
  walk(value, t, root, true, false);
  // toFieldsV1's form: `.` only on a member with children, path elements sorted.
  const encode = (node: Node): Record<string, any> => {
    const out: Record<string, any> = {};
    if (node.member && node.children.size) out['.'] = {};
    for (const pe of [...node.children.keys()].sort()) out[pe] = encode(node.children.get(pe)!);
    return out;
  };
  return encode(root);
}

/** Applies a configuration onto a live value (structured-merge-diff's Merge: the configuration wins). */
export function merge(live: unknown, config: unknown, t: SsaType): unknown {
  if (config === undefined) return live;
  if (live === undefined || live === null || isLeaf(t, config) || isLeaf(t, live)) return config;
  if (t.kind === 'list') {
    const out = [...(live as unknown[])];
    const index = new Map(out.map((item, i) => [itemElement(t, item, i), i]));
    (config as unknown[]).forEach((item, i) => {
      const pe = itemElement(t, item, i);
      const at = index.get(pe);
      if (at === undefined) {
        index.set(pe, out.length);
        out.push(item);
      } else out[at] = merge(out[at], item, t.elem);
    });
    return out;
  }
  const out: Record<string, unknown> = { ...(live as Record<string, unknown>) };
  for (const [key, value] of Object.entries(config as Record<string, unknown>)) {
    out[key] = merge(out[key], value, childType(t, key).type);
  }
  return out;
}

/**
 * Removes the members of `remove` from a value (pruning), except fields above a path in `keep`.
 * A list item in `remove` goes whole even when another manager owns a field inside it, as
 * structured-merge-diff prunes (only named fields are kept as parents of owned fields): an
 * applier that stops applying a webhook or a container removes it, not all but the other
 * manager's field (which would leave an item without its key).
 */
export function removeFields(value: unknown, t: SsaType, remove: FieldSet, keep: Set<string>): unknown {
  const walk = (v: unknown, type: SsaType, path: FieldPath): unknown => {
    if (isLeaf(type, v)) return v;
    if (type.kind === 'list') {
      const out: unknown[] = [];
      (v as unknown[]).forEach((item, i) => {
        const p = [...path, itemElement(type, item, i)];
        if (remove.has(p)) return;
        out.push(walk(item, type.elem, p));
      });
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      const p = [...path, fieldElement(key)];
      if (remove.has(p) && !keep.has(p.join('\u0000'))) continue;
      out[key] = walk(child, childType(type, key).type, p);
    }
    return out;
  };
  return walk(value, t, []);
}
