/**
 * Field paths and sets as structured-merge-diff writes them: path elements `f:name` (a field),
 * `k:{"name":"app"}` (a list-map item by its keys), `v:"x"` (a set item) and `i:0` (an index);
 * a set of paths is serialized as `fieldsV1`, where `.` marks a node that is itself a member.
 */

/** One path: its elements. */
export type FieldPath = readonly string[];

/**
 * A set of field paths. A set is not changed once built (`insert` is for building it): the set
 * operations return this set itself when nothing changes, so callers can tell by identity.
 */
export class FieldSet {
  private readonly paths = new Map<string, FieldPath>();

  constructor(paths: Iterable<FieldPath> = []) {
    for (const p of paths) this.insert(p);
  }

  /** Adds a path (`key` is its elements joined by NUL, when the caller has it already). */
  insert(path: FieldPath, key = path.join('\u0000')): void {
    this.paths.set(key, path);
  }

  /** Whether the path is a member. */
  has(path: FieldPath): boolean {
    return this.paths.has(path.join('\u0000'));
  }

  get size(): number {
    return this.paths.size;
  }

  /** Every member. */
  values(): FieldPath[] {
    return [...this.paths.values()];
  }

  private filtered(keep: (key: string) => boolean): FieldSet {
    const out = new FieldSet();
    for (const [key, path] of this.paths) if (keep(key)) out.paths.set(key, path);
    return out;
  }

  /** Whether the two sets share no member (walks the smaller). */
  private disjoint(other: FieldSet): boolean {
    const [small, large] = this.size <= other.size ? [this, other] : [other, this];
    for (const key of small.paths.keys()) if (large.paths.has(key)) return false;
    return true;
  }

  /** Members of this set or the other. */
  union(other: FieldSet): FieldSet {
    if (other.size === 0 || other === this) return this;
    if (this.size === 0) return other;
    let subset = other.size <= this.size;
    if (subset) for (const key of other.paths.keys()) if (!this.paths.has(key)) subset = false;
    if (subset) return this;
    const out = this.filtered(() => true);
    for (const [key, path] of other.paths) out.paths.set(key, path);
    return out;
  }

  /** Members of this set not in the other. */
  difference(other: FieldSet): FieldSet {
    if (other.size === 0 || this.size === 0) return this;
    if (other === this) return new FieldSet();
    if (this.disjoint(other)) return this;
    return this.filtered((key) => !other.paths.has(key));
  }

  /** Members of both sets. */
  intersection(other: FieldSet): FieldSet {
    return this.filtered((key) => other.paths.has(key));
  }

  /** Every proper prefix of every member (the nodes above them). */
  prefixes(): Set<string> {
    const out = new Set<string>();
    for (const p of this.values()) for (let i = 1; i < p.length; i++) out.add(p.slice(0, i).join('\u0000'));
    return out;
  }

  /** The `fieldsV1` object of this set. */
  toFieldsV1(): Record<string, any> {
    const root: Record<string, any> = {};
    for (const p of this.values()) {
      let node = root;
      for (const pe of p) node = node[pe] ??= {};
      node['.'] = {};
    }
    return tidy(root);
  }

  /** Reads a `fieldsV1` object. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const set = new FieldSet();
    const walk = (node: any, path: string[]) => {
      if (!node || typeof node !== 'object') return;
      const keys = Object.keys(node).filter((k) => k !== '.');
      if (path.length && (keys.length === 0 || '.' in node)) set.insert(path);
      for (const k of keys) walk(node[k], [...path, k]);
    };
    walk(fields, []);
    return set;
  }
}

/** Drops `.` from leaves and orders keys: `.` first, then the path elements sorted. */
function tidy(node: Record<string, any>): Record<string, any> {
  const keys = Object.keys(node)
    .filter((k) => k !== '.')
    .sort();
  const out: Record<string, any> = {};
  if (keys.length && '.' in node) out['.'] = {};
  for (const k of keys) out[k] = tidy(node[k]);
  return out;
}

/** A field element. */
export const fieldElement = (name: string) => `f:${name}`;

/** A list-map item element: its key fields, sorted by name. */
export function keyElement(
  item: Record<string, unknown>,
  keys: string[],
  defaults: Record<string, unknown> = {},
): string {
  const fields = [...keys]
    .sort()
    .filter((k) => item?.[k] !== undefined || defaults[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(item?.[k] ?? defaults[k])}`);
  return `k:{${fields.join(',')}}`;
}

/** A set item element. */
export const valueElement = (value: unknown) => `v:${JSON.stringify(value)}`;

/** A path as structured-merge-diff prints it in conflicts: `.spec.containers[name="app"].image`. */
export function pathString(path: FieldPath): string {
  return path
    .map((pe) => {
      const body = pe.slice(2);
      if (pe.startsWith('f:')) return `.${body}`;
      if (pe.startsWith('v:')) return `[=${body}]`;
      if (pe.startsWith('i:')) return `[${body}]`;
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}
