import { quantityValue } from '../../registry/builtins/quantity.ts';

/** The value of a quantity in base units (cores, bytes, count); NaN when malformed. */
export function parseQuantity(value: unknown): number {
  return quantityValue(value) ?? Number.NaN;
}
