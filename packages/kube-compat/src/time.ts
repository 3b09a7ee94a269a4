const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * `Date.prototype.toISOString` of epoch milliseconds (`2026-11-22T04:40:47.123Z`), written from the
 * UTC fields. For the daemon's footprint (ADR 0009): in Node 24 the first `toISOString` or
 * `toUTCString` of a process adds ~3 MB of RSS that stays; the UTC getters do not. Years outside
 * 0–9999 are left to `toISOString`.
 */
export function isoTime(ms: number = Date.now()): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) return d.toISOString();
  const millis = d.getUTCMilliseconds();
  return `${String(year).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${millis < 100 ? (millis < 10 ? '00' : '0') : ''}${millis}Z`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An HTTP `Date` (`Tue, 24 Nov 2026 16:49:28 GMT`, `Date#toUTCString`), from the UTC getters as {@link isoTime}. */
export function httpDate(ms: number = Date.now()): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) return d.toUTCString();
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${String(year).padStart(4, '0')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`;
}

/**
 * A Kubernetes `metav1.Time` as the API writes it: RFC 3339 in UTC, whole seconds
 * (`2026-11-22T04:40:47Z`). Takes a Date or epoch milliseconds; now by default.
 */
export function kubeTime(at: Date | number = Date.now()): string {
  return isoTime(typeof at === 'number' ? at : at.getTime()).replace(/\.\d{3}Z$/, 'Z');
}
