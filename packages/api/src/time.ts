/**
 * A Kubernetes `metav1.Time` as the API writes it: RFC 3339 in UTC, whole seconds
 * (`2026-11-22T04:40:47Z`). Takes a Date or epoch milliseconds; now by default.
 */
export function kubeTime(at: Date | number = Date.now()): string {
  return (typeof at === 'number' ? new Date(at) : at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
