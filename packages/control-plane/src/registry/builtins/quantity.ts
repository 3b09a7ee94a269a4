const SUFFIXES: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

/**
 * The value of a Kubernetes resource quantity (`100m`, `1Gi`, `1e3`, a bare number), or
 * undefined when it is not one. Precise enough to compare the quantities of a pod's resources.
 */
export function quantityValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = QUANTITY.exec(value.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return Number(`${m[1]}${m[2]}`);
  return base * SUFFIXES[m[3] ?? '']!;
}

/** Whether two resource lists hold the same quantities (`1` equals `1000m`, as Go's semantic equality). */
export function sameResourceList(a: unknown, b: unknown): boolean {
  const left = (a ?? {}) as Record<string, unknown>;
  const right = (b ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const k of keys) {
    if (!(k in left) || !(k in right)) return false;
    const x = quantityValue(left[k]);
    const y = quantityValue(right[k]);
    if (x === undefined || y === undefined ? left[k] !== right[k] : x !== y) return false;
  }
  return true;
}
