import { quantityValue } from '../../registry/builtins/quantity.ts';

/** The value of a quantity in base units (cores, bytes, count); NaN when malformed. */
export function parseQuantity(value: unknown): number {
  return quantityValue(value) ?? Number.NaN;
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
