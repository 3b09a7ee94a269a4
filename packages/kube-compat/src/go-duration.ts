/** Nanoseconds in each unit Go's `time.ParseDuration` knows (both micro signs included). */
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NS = (1n << 63n) - 1n;

/** Go's `quote` in package time: the text in double quotes, with quotes and backslashes escaped. */
const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * Reads a Go duration as `time.ParseDuration` does (`300ms`, `-1.5h`, `2h45m`, `1µs`, `0`) into
 * nanoseconds: an optional sign, then one or more decimal numbers each with a unit (ns, us, µs, ms,
 * s, m, h); `0` alone needs no unit. A fraction is scaled as Go scales it (through a float64).
 * @throws Error in Go's words: `time: invalid duration "x"`, `time: missing unit in duration "300000"`,
 * `time: unknown unit "d" in duration "1d"`.
 */
export function parseGoDuration(text: string): bigint {
  const invalid = () => new Error(`time: invalid duration ${quote(text)}`);
  let s = text;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid();
    let i = 0;
    let whole = 0n;
    while (isDigit(s[i])) {
      whole = whole * 10n + BigInt(s.charCodeAt(i) - 48);
      if (whole > 1n << 63n) throw invalid();
      i++;
    }
    const before = i > 0;
    let fraction = 0n;
    let scale = 1;
    let after = false;
    if (s[i] === '.') {
      i++;
      let overflow = false;
      while (isDigit(s[i])) {
        after = true;
        if (!overflow) {
          const next = fraction * 10n + BigInt(s.charCodeAt(i) - 48);
          if (fraction > MAX_NS / 10n || next > 1n << 63n) overflow = true;
          else {
            fraction = next;
            scale *= 10;
          }
        }
        i++;
      }
    }
    if (!before && !after) throw invalid();
    s = s.slice(i);
    let u = 0;
    while (u < s.length && s[u] !== '.' && !isDigit(s[u])) u++;
    if (u === 0) throw new Error(`time: missing unit in duration ${quote(text)}`);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNIT_NS[unitName];
    if (unit === undefined)
      throw new Error(`time: unknown unit ${quote(unitName)} in duration ${quote(text)}`);
    if (whole > (1n << 63n) / unit) throw invalid();
    let value = whole * unit;
    if (fraction > 0n) {
      value += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (value > 1n << 63n) throw invalid();
    }
    total += value;
    if (total > 1n << 63n) throw invalid();
  }
  if (negative) return -total;
  if (total > MAX_NS) throw invalid();
  return total;
}

/** `whole.fraction` of `value / unit`, trailing zeros (and a bare point) dropped, as Go's fmtFrac. */
function fractional(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/**
 * Writes nanoseconds as Go's `Duration.String()` does: `0s`, `500ms`, `1.5µs`, `30s`, `2m0s`,
 * `1h30m0s` — what pflag prints as a duration flag's default.
 */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  let v = ns < 0n ? -ns : ns;
  if (v < UNIT_NS.s!) {
    const [unit, size] =
      v < UNIT_NS.us! ? ['ns', 1n] : v < UNIT_NS.ms! ? ['µs', UNIT_NS.us!] : ['ms', UNIT_NS.ms!];
    return `${sign}${fractional(v, size)}${unit}`;
  }
  const hours = v / UNIT_NS.h!;
  v %= UNIT_NS.h!;
  const minutes = v / UNIT_NS.m!;
  const seconds = fractional(v % UNIT_NS.m!, UNIT_NS.s!);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** {@link parseGoDuration} in milliseconds (fractions kept: `1500us` is 1.5). */
export function parseGoDurationMs(text: string): number {
  return Number(parseGoDuration(text)) / 1e6;
}

/** {@link formatGoDuration} of milliseconds (`300000` → `5m0s`). */
export function formatGoDurationMs(ms: number): string {
  return formatGoDuration(BigInt(Math.round(ms * 1e6)));
}
