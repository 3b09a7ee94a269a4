/**
 * A float64 as Go's fmt prints it with `%v` or `%g`: the shortest form that reads back, in exponent
 * form (`1e+06`, `1.5e-05`, two exponent digits at least) from 1e+06 up or below 1e-04.
 */
export function goFloat(n: number): string {
  if (n === 0) return '0';
  const [digits, e] = n.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6)
    return `${digits}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}
