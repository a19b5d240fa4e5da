/**
 * BLS12-377 scalar field elements as 9 little-endian limbs of 29 bits (261 bits) for the WASM
 * kernel, and the Montgomery constants for R = 2^261.
 *
 * Why 29 bits: a limb product is < 2^58, so 64-bit accumulators absorb dozens of products before a
 * carry is needed (the kernel defers all carries to once per column). R = 2^261 is far above 4p,
 * so Montgomery products need no final subtraction: with inputs a, b < 2^260 the output
 * (ab + mp)/R is < ab/R + p.
 */
import { FIELD_MODULUS } from './field.js';
import { invMod } from './matrix.js';

export const LIMB_BITS = 29;
export const LIMBS = 9;
export const LIMB_MASK = (1 << LIMB_BITS) - 1;
/** Bytes per field element in WASM memory (limbs stored as u32). */
export const ELEM_BYTES = LIMBS * 4;

const P = FIELD_MODULUS;
const RBITS = BigInt(LIMB_BITS * LIMBS);
export const MONT_R: bigint = (1n << RBITS) % P;
export const MONT_R2: bigint = (MONT_R * MONT_R) % P;
export const MONT_R_INV: bigint = invMod(MONT_R);
/** −p⁻¹ mod 2^29 (p ≡ 1 mod 2^47, so this is 2^29 − 1). Newton iteration for the inverse. */
export const MONT_MU: number = (() => {
  const m = 1n << BigInt(LIMB_BITS);
  let inv = 1n;
  for (let i = 0; i < 6; i++) inv = (inv * (2n - ((P * inv) % m))) % m;
  return Number((((m - inv) % m) + m) % m);
})();

/**
 * Q = a multiple of p above 2^511: the full-round MDS kernel (Winograd pairing) adds Q − C and
 * Q − Y for the two integer products it must subtract (C, Y < 2^511), keeping every column ≥ 0.
 */
export const WINOGRAD_Q: bigint = P * ((1n << 511n) / P + 1n);

/** Limbs of a non-negative integer < 2^261. */
export function toLimbs(x: bigint): number[] {
  if (x < 0n || x >> RBITS !== 0n) throw new RangeError(`toLimbs: out of range ${x}`);
  const out: number[] = [];
  for (let i = 0; i < LIMBS; i++) {
    out.push(Number(BigInt.asUintN(LIMB_BITS, x)));
    x >>= BigInt(LIMB_BITS);
  }
  return out;
}

export const P_LIMBS: readonly number[] = toLimbs(P);

/** The Montgomery form x·R mod p. */
export function toMont(x: bigint): bigint {
  return (((x % P) + P) % P * MONT_R) % P;
}

/** x·R⁻¹ mod p (canonical) for any non-negative x. */
export function fromMont(x: bigint): bigint {
  return ((x % P) * MONT_R_INV) % P;
}

/**
 * Writes x (0 ≤ x < 2^261) as 9 limbs at u32[at … at+8]. Splits via two 128-bit halves to keep the
 * BigInt work small; the limbs are then cut with 32-bit integer arithmetic.
 */
export function writeLimbs(u32: Uint32Array, at: number, x: bigint): void {
  // Eight 32-bit words w0..w7 (256 bits) plus bits 256..260.
  const lo = BigInt.asUintN(128, x);
  const hi = x >> 128n;
  const a = BigInt.asUintN(64, lo);
  const b = lo >> 64n;
  const c = BigInt.asUintN(64, hi);
  const d = hi >> 64n;
  const w0 = Number(BigInt.asUintN(32, a));
  const w1 = Number(a >> 32n);
  const w2 = Number(BigInt.asUintN(32, b));
  const w3 = Number(b >> 32n);
  const w4 = Number(BigInt.asUintN(32, c));
  const w5 = Number(c >> 32n);
  const w6 = Number(BigInt.asUintN(32, d));
  const dh = d >> 32n;
  if (dh >> 37n !== 0n) throw new RangeError('writeLimbs: value ≥ 2^261');
  const w7 = Number(BigInt.asUintN(32, dh));
  const w8 = Number(dh >> 32n);
  wordsToLimbs(u32, at, w0, w1, w2, w3, w4, w5, w6, w7, w8);
}

/** 29-bit limbs from 32-bit words w0..w7 (+ w8: bits 256..260). */
export function wordsToLimbs(
  u32: Uint32Array,
  at: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
  w4: number,
  w5: number,
  w6: number,
  w7: number,
  w8: number,
): void {
  const M = LIMB_MASK;
  u32[at] = w0 & M; // bits 0..28
  u32[at + 1] = ((w0 >>> 29) | (w1 << 3)) & M; // 29..57
  u32[at + 2] = ((w1 >>> 26) | (w2 << 6)) & M; // 58..86
  u32[at + 3] = ((w2 >>> 23) | (w3 << 9)) & M; // 87..115
  u32[at + 4] = ((w3 >>> 20) | (w4 << 12)) & M; // 116..144
  u32[at + 5] = ((w4 >>> 17) | (w5 << 15)) & M; // 145..173
  u32[at + 6] = ((w5 >>> 14) | (w6 << 18)) & M; // 174..202
  u32[at + 7] = ((w6 >>> 11) | (w7 << 21)) & M; // 203..231
  u32[at + 8] = ((w7 >>> 8) | (w8 << 24)) & M; // 232..260
}

/** The integer held in 9 limbs at u32[at …] (limbs may be up to 32 bits wide). */
export function readLimbs(u32: Uint32Array, at: number): bigint {
  let x = 0n;
  for (let i = LIMBS - 1; i >= 0; i--) x = (x << BigInt(LIMB_BITS)) + BigInt(u32[at + i] as number);
  return x;
}
