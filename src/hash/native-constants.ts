/**
 * The native kernel's constants (native/poseidon8.h, `p8_consts`) as 64-bit words, derived from
 * the same generated parameters as the WASM kernel (params.ts → sparseParams.ts): modulus,
 * R² mod p, n0 = −p⁻¹ mod 2^64, then full-round constants, MDS, partial-round constants, rows,
 * columns and the final 8×8 block, each element in Montgomery form (R = 2^256) as 4 limbs,
 * least significant first. Also used to write the sanitizer driver's input (scripts/).
 */
import { FIELD_MODULUS } from './field.js';
import { POSEIDON8_MDS } from './params.js';
import { deriveSparseParams } from './sparseParams.js';

const P = FIELD_MODULUS;
const MASK64 = (1n << 64n) - 1n;

/** 4 little-endian 64-bit limbs of 0 ≤ x < 2^256. */
export function limbs64(x: bigint): bigint[] {
  return [x & MASK64, (x >> 64n) & MASK64, (x >> 128n) & MASK64, (x >> 192n) & MASK64];
}

/** The integer held by 4 limbs at out[at …]. */
export function fromLimbs64(a: BigUint64Array, at = 0): bigint {
  return (a[at] as bigint) | ((a[at + 1] as bigint) << 64n) | ((a[at + 2] as bigint) << 128n) | ((a[at + 3] as bigint) << 192n);
}

/** Writes 4 limbs of 0 ≤ x < 2^256 at out[at …]; RangeError otherwise (no silent wrap). */
export function writeLimbs64(out: BigUint64Array, at: number, x: bigint): void {
  if (x < 0n || x >> 256n !== 0n) throw new RangeError(`value does not fit 4 64-bit limbs: ${x}`);
  out[at] = x & MASK64;
  out[at + 1] = (x >> 64n) & MASK64;
  out[at + 2] = (x >> 128n) & MASK64;
  out[at + 3] = x >> 192n;
}

/** −p⁻¹ mod 2^64 (Newton iteration on the inverse mod 2^64). */
function negInv64(p: bigint): bigint {
  let inv = 1n;
  for (let i = 0; i < 7; i++) inv = (inv * (2n - p * inv)) & MASK64;
  return (-inv) & MASK64;
}

export function nativeConstantWords(): BigUint64Array {
  const sp = deriveSparseParams();
  const mont = (x: bigint): bigint => (x << 256n) % P;
  const elements: bigint[] = [
    ...sp.fullArk.flat(),
    ...POSEIDON8_MDS.flat(),
    ...sp.partialConst,
    ...sp.partialRow.flat(),
    ...sp.partialCol.flat(),
    ...sp.finalBlock.flat(),
  ].map(mont);
  const words = [...limbs64(P), ...limbs64((1n << 512n) % P), negInv64(P), ...elements.flatMap(limbs64)];
  return BigUint64Array.from(words);
}
