/** Kubernetes resource quantities (`500m`, `1.5`, `128Mi`, `1e3`, `2G`) as numbers. */

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/** The value of a quantity in base units (cores, bytes, count); NaN when malformed. */
export function parseQuantity(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return Number.NaN;
  const m = QUANTITY.exec(value.trim());
  if (!m) return Number.NaN;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  return base * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** CPU in millicores, rounded up as kube-scheduler's MilliValue does. */
export function milliCpu(value: unknown): number {
  const v = parseQuantity(value);
  return Number.isNaN(v) ? 0 : Math.ceil(Math.round(v * 1e9) / 1e6);
}

/** Memory (or any integer resource) in base units, rounded up. */
export function integerValue(value: unknown): number {
  const v = parseQuantity(value);
  return Number.isNaN(v) ? 0 : Math.ceil(v);
}
