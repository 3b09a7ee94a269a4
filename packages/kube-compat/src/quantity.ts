/**
 * Kubernetes resource quantities (`500m`, `1.5`, `1Gi`, `1e3`) parsed and written back in their
 * canonical form, as apimachinery's resource.Quantity marshals them: `1.5` → `1500m`,
 * `1024Mi` → `1Gi`, `0.5Gi` → `512Mi`.
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A parsed quantity: `mantissa × 10^scale`, and the format its suffix asked for. */
export interface Quantity {
  mantissa: bigint;
  scale: number;
  format: Format;
}

const DECIMAL_SUFFIX: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?([a-zA-Z]*|[eE][+-]?\d+)$/;

const pow10 = (n: number) => 10n ** BigInt(n);

/** Parses a quantity; undefined when it is not one (apimachinery's ErrFormatWrong cases). */
export function parseQuantity(text: string): Quantity | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign, whole = '', fraction = '', suffix = ''] = m;
  if (whole === '' && fraction === '') return undefined;
  let mantissa = BigInt((whole || '0') + fraction);
  let scale = -fraction.length;
  let format: Format;
  if (suffix in DECIMAL_SUFFIX) {
    format = 'DecimalSI';
    scale += DECIMAL_SUFFIX[suffix]!;
  } else if (suffix in BINARY_SUFFIX) {
    format = 'BinarySI';
    mantissa *= 2n ** BigInt(BINARY_SUFFIX[suffix]!);
  } else if (/^[eE]/.test(suffix)) {
    format = 'DecimalExponent';
    scale += Number(suffix.slice(1));
  } else return undefined;
  if (scale < -9) {
    // Finer than nano: rounded away from zero, as Kubernetes does.
    const d = pow10(-9 - scale);
    mantissa = (mantissa + d - 1n) / d;
    scale = -9;
  }
  return { mantissa: sign === '-' ? -mantissa : mantissa, scale, format };
}

function decimalCanonical(q: Quantity): string {
  let { mantissa, scale } = q;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  const r = scale % 3;
  if (r === 1 || r === -2) {
    mantissa *= 10n;
    scale -= 1;
  } else if (r === 2 || r === -1) {
    mantissa *= 100n;
    scale -= 2;
  }
  if (q.format === 'DecimalExponent') return `${mantissa}${scale === 0 ? '' : `e${scale}`}`;
  const suffix = Object.entries(DECIMAL_SUFFIX).find(([, e]) => e === scale)?.[0];
  return `${mantissa}${suffix ?? `e${scale}`}`;
}

/** The canonical text of a parsed quantity (what a Go client writes back). */
export function formatQuantity(q: Quantity): string {
  if (q.mantissa === 0n) return '0';
  if (q.format === 'BinarySI') {
    const abs = q.mantissa < 0n ? -q.mantissa : q.mantissa;
    const integral = q.scale >= 0 || abs % pow10(-q.scale) === 0n;
    const value = q.scale >= 0 ? q.mantissa * pow10(q.scale) : q.mantissa / pow10(-q.scale);
    if (integral && (value >= 1024n || value <= -1024n)) {
      let amount = value;
      let exp = 0;
      while (amount % 1024n === 0n && exp < 6) {
        amount /= 1024n;
        exp++;
      }
      return `${amount}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][exp]}`;
    }
    return decimalCanonical({ ...q, format: 'DecimalSI' });
  }
  return decimalCanonical(q);
}

/** A quantity's canonical text; text that is not a quantity comes back unchanged. */
export function canonicalQuantity(text: string): string {
  const q = parseQuantity(text);
  return q ? formatQuantity(q) : text;
}

/** Whether two quantities are the same amount (`1Gi` equals `1024Mi`). */
export function quantitiesEqual(a: string | number | undefined, b: string | number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const qa = parseQuantity(String(a));
  const qb = parseQuantity(String(b));
  if (!qa || !qb) return String(a) === String(b);
  const s = Math.min(qa.scale, qb.scale);
  return qa.mantissa * pow10(qa.scale - s) === qb.mantissa * pow10(qb.scale - s);
}

/** A quantity in whole units, rounded up (apimachinery's `Quantity.Value`). */
export function quantityValue(q: Quantity): bigint {
  if (q.scale >= 0) return q.mantissa * pow10(q.scale);
  const d = pow10(-q.scale);
  return q.mantissa >= 0n ? (q.mantissa + d - 1n) / d : q.mantissa / d;
}

/** A quantity in thousandths, rounded up (apimachinery's `Quantity.MilliValue`). */
export function quantityMilliValue(q: Quantity): bigint {
  return quantityValue({ ...q, scale: q.scale + 3 });
}
