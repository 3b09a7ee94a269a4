/** The hash functions Kubernetes and Kruise name objects and compare templates with. */

/** 32-bit FNV-1 (Go's `hash/fnv.New32`) of `data`, continuing from `seed` when given. */
export function fnv1_32(data: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed;
  for (const b of data) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h;
}

/** 32-bit FNV-1a (Go's `hash/fnv.New32a`) of `data`. */
export function fnv1a_32(data: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of data) {
    h = (h ^ b) >>> 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Kubernetes' `hashutil.DeepHashObject(fnv32a, jsonBytes)` as Kruise calls it on JSON bytes: go-spew
 * prints a byte slice as `([]uint8)[123 34 …]`, and that text is hashed with FNV-1a.
 */
export function deepHashJsonBytes(json: string): number {
  const bytes = Buffer.from(json, 'utf8');
  return fnv1a_32(Buffer.from(`([]uint8)[${bytes.join(' ')}]`, 'latin1'));
}

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** apimachinery's `rand.SafeEncodeString`: each character mapped into consonants and digits. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += SAFE_ALPHANUMS[b % SAFE_ALPHANUMS.length];
  return out;
}
