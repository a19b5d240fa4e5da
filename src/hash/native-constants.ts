/**
 * The native kernel's constants (native/poseidon8.h, `p8_consts`) as 64-bit words, derived from
 * the same generated parameters as the WASM kernel (params.ts → sparseParams.ts): modulus,
 * R² mod p, n0 = −p⁻¹ mod 2^64, then full-round constants, MDS, partial-round constants, rows
 * extended with the window terms, the per-window columns and the final 8×8 block, each element in
 * Montgomery form (R = 2^256) as 4 limbs, least significant first. Also used to write the
 * sanitizer driver's input (scripts/).
 *
 * The kernel applies the partial rounds in windows of NATIVE_WINDOW rounds (native/poseidon8.c):
 * round r's row is followed by row_r[1..8]·col_q for the window's earlier rounds q (padded with 0
 * to WIDTH + NATIVE_WINDOW − 1 terms), and per window and element j the columns col_q[j] of its
 * rounds (padded with 0 to NATIVE_WINDOW).
 */
import { FIELD_MODULUS } from './field.js';
import { POSEIDON8_MDS } from '../generated/poseidonParams.js';
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

/** P8_WINDOW in native/poseidon8.h. */
export const NATIVE_WINDOW = 4;

/** Rows extended with the window terms row_r[1..8]·col_q (q: the window's rounds before r). */
function windowRows(row: readonly (readonly bigint[])[], col: readonly (readonly bigint[])[]): bigint[][] {
  return row.map((rowR, r) => {
    const start = r - (r % NATIVE_WINDOW);
    const cross: bigint[] = [];
    for (let q = start; q < r; q++) cross.push((col[q] as readonly bigint[]).reduce((acc, c, j) => (acc + (rowR[j + 1] as bigint) * c) % P, 0n));
    while (cross.length < NATIVE_WINDOW - 1) cross.push(0n);
    return [...rowR, ...cross];
  });
}

/** Per window and element j (0..7): col_q[j] for the window's rounds q. */
function windowCols(col: readonly (readonly bigint[])[]): bigint[][][] {
  const windows: bigint[][][] = [];
  for (let start = 0; start < col.length; start += NATIVE_WINDOW) {
    const rate = (col[0] as readonly bigint[]).length;
    windows.push(Array.from({ length: rate }, (_, j) => Array.from({ length: NATIVE_WINDOW }, (_, i) => (col[start + i] as readonly bigint[] | undefined)?.[j] ?? 0n)));
  }
  return windows;
}

export function nativeConstantWords(): BigUint64Array {
  const sp = deriveSparseParams();
  const mont = (x: bigint): bigint => (x << 256n) % P;
  const elements: bigint[] = [
    ...sp.fullArk.flat(),
    ...POSEIDON8_MDS.flat(),
    ...sp.partialConst,
    ...windowRows(sp.partialRow, sp.partialCol).flat(),
    ...windowCols(sp.partialCol).flat(2),
    ...sp.finalBlock.flat(),
  ].map(mont);
  const words = [...limbs64(P), ...limbs64((1n << 512n) % P), negInv64(P), ...elements.flatMap(limbs64)];
  return BigUint64Array.from(words);
}
